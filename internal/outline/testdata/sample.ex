defmodule Spotter.Store do
  @moduledoc """
  Keeps things.

  def not_a_function, do: nil
  """

  @type t :: %__MODULE__{}
  @callback fetch(id :: term) :: {:ok, term}

  defstruct [:items]

  def new, do: %__MODULE__{items: []}

  def fetch(%__MODULE__{items: items}, id) when is_integer(id) do
    Enum.at(items, id)
  end

  def fetch(_store, _id), do: nil

  defp helper(x), do: x

  defmacro debug(expr) do
    quote do: IO.inspect(unquote(expr))
  end

  defdelegate size(store), to: Enum, as: :count
end

defimpl String.Chars, for: Spotter.Store do
  def to_string(_store), do: "store"
end

defmodule Spotter.StoreTest do
  use ExUnit.Case

  describe "fetch/2" do
    test "finds an item" do
      assert true
    end
  end
end
