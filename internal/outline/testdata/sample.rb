# A store.
module Store
  class Cache < Base
    SQL = <<~SQL
      def not_a_method
      end
    SQL

    def initialize(size)
      @size = size
      @log << "created"
    end

    def self.build(opts = {})
      new(opts[:size])
    end

    def empty?
      @size.zero?
    end

    class << self
      def shared; end
    end
  end
end

=begin
def commented_out
end
=end

describe Store::Cache do
  it "starts empty" do
    expect(Store::Cache.new(0)).to be_empty
  end
end
