#include <string>
#define MAX(a, b) ((a) > (b) ? (a) : (b))

namespace store {

class Cache : public Base {
public:
  explicit Cache(int size) : size_(size) {}
  ~Cache() override;
  int Size() const { return size_; }
  void Put(const std::string& key,
           const std::string& value);

private:
  int size_;
};

struct Entry {
  std::string key;
};

typedef struct {
  int n;
} Counter;

typedef void (*Callback)(void*);

enum class Color { Red, Green };

static int helper(int n) {
  return n * 2;
}

int Cache::Put2(const std::string& key) { return 0; }

template <typename K, typename V>
bool Map<K, V>::Contains(const K& key) const {
  return false;
}

inline bool operator==(const Entry& a, const Entry& b) {
  return a.key == b.key;
}

int prototype(int n);

}  // namespace store

int
main(int argc, char** argv)
{
  return helper(argc);
}
