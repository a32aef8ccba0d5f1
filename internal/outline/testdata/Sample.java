package com.example.store;

import java.util.List;

/**
 * A store.
 * public void notAMethod() {}
 */
public final class Store<T> implements Iterable<T> {
  private static final Logger LOG =
      LoggerFactory.getLogger(Store.class);
  private final List<T> items = new ArrayList<>();

  public Store(int capacity) {
    this.items = new ArrayList<>(capacity);
  }

  @Override
  public Iterator<T> iterator() {
    return items.iterator();
  }

  public static <U> Store<U> of(
      List<U> items) {
    return new Store<>(items.size());
  }

  interface Visitor {
    void visit(Object o);
  }

  enum Kind {
    SMALL("s"),
    LARGE("l");

    Kind(String code) {}
  }

  record Pair(int a, int b) {}
}
