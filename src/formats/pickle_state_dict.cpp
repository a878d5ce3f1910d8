#include "formats/pickle_state_dict.hpp"

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

namespace dlready {
namespace {

struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T>
T get(const std::string& b, size_t at) {
  if (at + sizeof(T) > b.size() || at + sizeof(T) < at) throw Unsupported("truncated");
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

// Every stored entry of a zip: name -> [offset, size) of its data.
std::map<std::string, std::pair<size_t, size_t>> zip_entries(const std::string& b) {
  size_t eocd = std::string::npos;
  for (size_t i = b.size() >= 22 ? b.size() - 22 : 0, stop = i > 65557 ? i - 65557 : 0; i + 1 > stop; --i) {
    if (get<uint32_t>(b, i) == 0x06054b50) {
      eocd = i;
      break;
    }
    if (i == 0) break;
  }
  if (eocd == std::string::npos) throw Unsupported("not a zip archive (no end record)");
  size_t count = get<uint16_t>(b, eocd + 10), at = get<uint32_t>(b, eocd + 16);
  std::map<std::string, std::pair<size_t, size_t>> out;
  for (size_t n = 0; n < count; ++n) {
    if (get<uint32_t>(b, at) != 0x02014b50) throw Unsupported("a damaged zip directory");
    uint16_t method = get<uint16_t>(b, at + 10), name_len = get<uint16_t>(b, at + 28), extra = get<uint16_t>(b, at + 30),
             comment = get<uint16_t>(b, at + 32);
    uint32_t size = get<uint32_t>(b, at + 20), local = get<uint32_t>(b, at + 42);
    if (at + 46 + name_len > b.size()) throw Unsupported("truncated");
    std::string name = b.substr(at + 46, name_len);
    // Two entries of one name: zip readers disagree on which counts (torch takes another than a
    // first-wins reader would), so such a file means two different models. Refused.
    if (out.count(name)) throw Unsupported("a zip with two entries named " + name);
    if (method != 0) throw Unsupported("a compressed zip entry (" + name + ")");
    if (get<uint32_t>(b, local) != 0x04034b50) throw Unsupported("a damaged zip entry (" + name + ")");
    size_t data = local + 30 + get<uint16_t>(b, local + 26) + get<uint16_t>(b, local + 28);
    if (data > b.size() || size > b.size() - data) throw Unsupported("truncated zip entry (" + name + ")");
    out[name] = {data, size};
    at += 46 + name_len + extra + comment;
  }
  return out;
}

struct PickleValue;
using PV = std::shared_ptr<PickleValue>;
struct PickleValue {
  enum Kind { none, integer, boolean, text, tuple, dict, global, storage, tensor, mark } kind = none;
  int64_t i = 0;
  int depth = 0;                     // nesting: 0 for a scalar, 1 + the deepest item for a tuple or dict
  std::string s;                     // text, global "module.name", storage key
  std::vector<PV> items;             // tuple; dict as key, value, key, value ...
  std::vector<int64_t> size, stride;  // tensor (offset in i, storage key in s)
};

PV make(PickleValue::Kind k) {
  auto v = std::make_shared<PickleValue>();
  v->kind = k;
  return v;
}

std::vector<int64_t> ints_of(const PV& t) {
  if (t->kind != PickleValue::tuple) throw Unsupported("a tensor's size or stride is not a tuple");
  std::vector<int64_t> out;
  for (const auto& x : t->items) {
    if (x->kind != PickleValue::integer) throw Unsupported("a tensor's size or stride holds a non-integer");
    out.push_back(x->i);
  }
  return out;
}

// What REDUCE makes of the two callables a state_dict uses.
PV reduce(const PV& callable, const PV& args) {
  if (callable->kind != PickleValue::global || args->kind != PickleValue::tuple) throw Unsupported("an unexpected call");
  if (callable->s == "collections.OrderedDict") return make(PickleValue::dict);
  if (callable->s != "torch._utils._rebuild_tensor_v2") throw Unsupported("the global " + callable->s);
  const auto& a = args->items;
  if (a.size() < 4 || a[0]->kind != PickleValue::storage || a[1]->kind != PickleValue::integer)
    throw Unsupported("a malformed tensor");
  auto t = make(PickleValue::tensor);
  t->s = a[0]->s, t->i = a[1]->i, t->size = ints_of(a[2]), t->stride = ints_of(a[3]);
  return t;
}

// ('storage', torch.FloatStorage, key, location, numel) -> the storage record's key.
PV persistent(const PV& id) {
  const auto& a = id->items;
  if (id->kind != PickleValue::tuple || a.size() != 5 || a[0]->s != "storage" || a[2]->kind != PickleValue::text)
    throw Unsupported("a malformed storage reference");
  if (a[1]->kind != PickleValue::global || a[1]->s != "torch.FloatStorage")
    throw Unsupported("a tensor that is not float32 (" + a[1]->s + ")");
  auto s = make(PickleValue::storage);
  s->s = a[2]->s;
  return s;
}

// A state_dict nests three levels (dict -> tensor args -> size tuple); anything far deeper is
// no state_dict, and nesting without bound would exhaust the stack when the values are destroyed.
constexpr int kMaxPickleDepth = 32;
constexpr size_t kMaxStackValues = size_t{1} << 20;

void nest(PickleValue& container, const PV& item) {
  if (item && item->depth + 1 > container.depth) container.depth = item->depth + 1;
  if (container.depth > kMaxPickleDepth)
    throw Unsupported("values nested deeper than " + std::to_string(kMaxPickleDepth) + " levels (not a state_dict)");
}

// "0x83 (not in a state_dict)", with the character when it is one: the opcode as Python's
// pickletools shows it.
std::string opcode_text(uint8_t op) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", op);
  std::string s = hex;
  if (op >= 0x20 && op < 0x7f) s += std::string(" '") + static_cast<char>(op) + "'";
  return s;
}

class PickleMachine {
 public:
  explicit PickleMachine(const std::string& p) : p_(p) {}
  PV run();

 private:
  uint8_t byte() { return get<uint8_t>(p_, at_++); }
  template <class T>
  T next() {
    T v = get<T>(p_, at_);
    at_ += sizeof(T);
    return v;
  }
  std::string bytes(size_t n) {
    if (n > p_.size() - at_) throw Unsupported("truncated");
    at_ += n;
    return p_.substr(at_ - n, n);
  }
  std::string line() {
    size_t nl = p_.find('\n', at_);
    if (nl == std::string::npos) throw Unsupported("truncated");
    std::string s = p_.substr(at_, nl - at_);
    at_ = nl + 1;
    return s;
  }
  PV pop() {
    if (stack_.empty()) throw Unsupported("a malformed pickle (empty stack)");
    PV v = stack_.back();
    stack_.pop_back();
    return v;
  }
  // Everything above the topmost MARK, in order (linear in what it takes).
  std::vector<PV> pop_to_mark() {
    size_t m = stack_.size();
    while (m > 0 && stack_[m - 1]->kind != PickleValue::mark) --m;
    if (m == 0) throw Unsupported("a malformed pickle (no MARK)");
    std::vector<PV> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(m)),
                          std::make_move_iterator(stack_.end()));
    stack_.resize(m - 1);  // and the mark
    return items;
  }
  PV tuple_of(std::vector<PV> items) {
    auto t = make(PickleValue::tuple);
    for (const auto& x : items) nest(*t, x);
    t->items = std::move(items);
    return t;
  }
  void push_int(int64_t v) {
    auto x = make(PickleValue::integer);
    x->i = v;
    stack_.push_back(x);
  }
  bool step(uint8_t op);
  bool push_value(uint8_t op);
  bool combine(uint8_t op);
  void set_items(uint8_t op);

  const std::string& p_;
  size_t at_ = 0;
  std::vector<PV> stack_;
  std::map<uint32_t, PV> memo_;
};

// Opcodes that push one value read from the pickle itself; false for any other opcode.
bool PickleMachine::push_value(uint8_t op) {
  switch (op) {
    case '(': stack_.push_back(make(PickleValue::mark)); return true;  // MARK
    case ')': stack_.push_back(tuple_of({})); return true;
    case '}': stack_.push_back(make(PickleValue::dict)); return true;
    case 'N': stack_.push_back(make(PickleValue::none)); return true;
    case 0x88: case 0x89: {
      auto b = make(PickleValue::boolean);
      b->i = op == 0x88;
      stack_.push_back(b);
      return true;
    }
    case 'J': push_int(next<int32_t>()); return true;
    case 'K': push_int(next<uint8_t>()); return true;
    case 'M': push_int(next<uint16_t>()); return true;
    case 0x8a: {  // LONG1: little-endian two's complement of n bytes
      uint8_t n = byte();
      if (n > 8) throw Unsupported("an integer over 64 bits");
      std::string b = bytes(n);
      uint64_t v = 0;
      for (size_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[k])) << (8 * k);
      if (n > 0 && n < 8 && (static_cast<uint8_t>(b[n - 1]) & 0x80)) v |= ~uint64_t{0} << (8 * n);
      push_int(static_cast<int64_t>(v));
      return true;
    }
    case 'X': case 0x8c: {
      auto t = make(PickleValue::text);
      t->s = bytes(op == 'X' ? next<uint32_t>() : next<uint8_t>());
      stack_.push_back(t);
      return true;
    }
    case 'c': {
      auto g = make(PickleValue::global);
      g->s = line();
      g->s += "." + line();
      stack_.push_back(g);
      return true;
    }
  }
  return false;
}

// Opcodes that build from what is on the stack (tuples, dicts, the two calls) or use the memo.
bool PickleMachine::combine(uint8_t op) {
  switch (op) {
    case 't': stack_.push_back(tuple_of(pop_to_mark())); return true;
    case 0x85: case 0x86: case 0x87: {
      std::vector<PV> items(static_cast<size_t>(op - 0x84));
      for (size_t k = items.size(); k-- > 0;) items[k] = pop();
      stack_.push_back(tuple_of(std::move(items)));
      return true;
    }
    case 'q': memo_[next<uint8_t>()] = stack_.empty() ? nullptr : stack_.back(); return true;
    case 'r': memo_[next<uint32_t>()] = stack_.empty() ? nullptr : stack_.back(); return true;
    case 0x94: memo_[static_cast<uint32_t>(memo_.size())] = stack_.empty() ? nullptr : stack_.back(); return true;
    case 'h': case 'j': {
      uint32_t k = op == 'h' ? next<uint8_t>() : next<uint32_t>();
      if (!memo_.count(k) || !memo_[k]) throw Unsupported("a malformed pickle (memo)");
      stack_.push_back(memo_[k]);
      return true;
    }
    case 'Q': stack_.push_back(persistent(pop())); return true;
    case 'R': {
      PV args = pop();
      stack_.push_back(reduce(pop(), args));
      return true;
    }
    case 's': case 'u': set_items(op); return true;
    case 'b': pop(); return true;  // BUILD: the OrderedDict's _metadata (versions of modules), not needed
  }
  return false;
}

// SETITEM ('s': one key and value) or SETITEMS ('u': pairs since the MARK) into the dict below them.
void PickleMachine::set_items(uint8_t op) {
  std::vector<PV> kv;
  if (op == 's') kv = {nullptr, pop()}, kv[0] = pop();
  else kv = pop_to_mark();
  if (stack_.empty() || stack_.back()->kind != PickleValue::dict || kv.size() % 2) throw Unsupported("a malformed dict");
  for (auto& x : kv) {
    nest(*stack_.back(), x);
    stack_.back()->items.push_back(x);
  }
}

bool PickleMachine::step(uint8_t op) {
  if (op == '.') return false;             // STOP
  if (op == 0x80) byte();                  // PROTO
  else if (op == 0x95) next<uint64_t>();  // FRAME
  else if (!push_value(op) && !combine(op))
    throw Unsupported("pickle opcode " + opcode_text(op) + " (not in a state_dict)");
  // A state_dict keeps a few values per tensor on the stack; a flat run of millions (each ~100
  // bytes of memory for one byte of file) is no state_dict.
  if (stack_.size() > kMaxStackValues)
    throw Unsupported("more than " + std::to_string(kMaxStackValues) + " values on the pickle's stack (not a state_dict)");
  return true;
}

PV PickleMachine::run() {
  for (size_t ops = 0; ops < 10'000'000; ++ops)
    if (!step(byte())) return pop();
  throw Unsupported("an endless pickle");
}

}  // namespace

std::variant<std::vector<StateDictTensor>, std::string> read_state_dict_records(const std::string& bytes) {
  try {
    auto entries = zip_entries(bytes);
    std::string prefix;
    for (const auto& [name, where] : entries)
      if (name.size() >= 8 && name.compare(name.size() - 8, 8, "data.pkl") == 0) prefix = name.substr(0, name.size() - 8);
    if (!entries.count(prefix + "data.pkl")) return std::string("no data.pkl: not a torch.save file");
    auto [at, size] = entries[prefix + "data.pkl"];
    PV root = PickleMachine(bytes.substr(at, size)).run();
    if (root->kind != PickleValue::dict) return std::string("holds something other than a state_dict");
    std::vector<StateDictTensor> out;
    for (size_t k = 0; k + 1 < root->items.size(); k += 2) {
      const auto& key = root->items[k];
      const auto& t = root->items[k + 1];
      if (key->kind != PickleValue::text || t->kind != PickleValue::tensor) return std::string("a state_dict entry is not name -> tensor");
      auto rec = entries.find(prefix + "data/" + t->s);
      if (rec == entries.end()) return "no storage record for '" + key->s + "'";
      // In bounds, and no more elements than the storage holds (a stride of 0 must not turn a
      // few bytes into a huge copy).
      int64_t extent = t->i + 1, numel = 1;  // extent: the last element's index + 1
      if (t->size.size() > 8) return "a bad shape for '" + key->s + "'";
      for (size_t d = 0; d < t->size.size() && d < t->stride.size(); ++d) {
        if (t->size[d] < 0 || t->stride[d] < 0 || t->size[d] > (1 << 24) || t->stride[d] > (int64_t{1} << 32))
          return "a bad shape for '" + key->s + "'";
        numel *= t->size[d];  // at most 2^24 times a count already within the storage
        if (numel > static_cast<int64_t>(rec->second.second / 4)) return "'" + key->s + "' has more elements than its storage";
        extent += (t->size[d] - 1) * t->stride[d];
      }
      if (t->size.size() != t->stride.size() || t->i < 0 || t->i > (int64_t{1} << 32) ||
          extent * 4 > static_cast<int64_t>(rec->second.second))
        return "'" + key->s + "' reaches past its storage";
      out.push_back({key->s, rec->second.first, rec->second.second, t->i, t->size, t->stride});
    }
    return out;
  } catch (const Unsupported& e) {
    return std::string(e.what());
  }
}

}  // namespace dlready
