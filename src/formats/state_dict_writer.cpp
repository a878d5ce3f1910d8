#include "formats/pickle_state_dict.hpp"

#include <zlib.h>

#include "core/little_endian.hpp"

namespace dlready {
namespace {

// Pickle protocol 2, the opcodes torch.save's state_dicts use.
struct Pickle {
  std::string out = "\x80\x02";
  void mark() { out += '('; }
  void global(const char* module, const char* name) { out += std::string("c") + module + "\n" + name + "\n"; }
  void text(const std::string& s) {
    out += 'X';
    put_little_endian(out, static_cast<uint32_t>(s.size()));
    out += s;
  }
  void integer(int64_t v) {
    out += 'J';
    put_little_endian(out, static_cast<int32_t>(v));
  }
  void tuple_of(const std::vector<int64_t>& values) {
    mark();
    for (int64_t v : values) integer(v);
    out += 't';
  }
  void empty_ordered_dict() {
    global("collections", "OrderedDict");
    out += ")R";
  }
};

struct ZipEntry {
  std::string name, data;
};

// A zip of stored entries: local headers, the data, the central directory, its end record.
std::string stored_zip(const std::vector<ZipEntry>& entries) {
  std::string out, central;
  for (const auto& e : entries) {
    auto crc = static_cast<uint32_t>(::crc32(0, reinterpret_cast<const Bytef*>(e.data.data()), static_cast<uInt>(e.data.size())));
    auto offset = static_cast<uint32_t>(out.size());
    auto header = [&](std::string& to, bool in_central) {
      put_little_endian(to, in_central ? uint32_t{0x02014b50} : uint32_t{0x04034b50});
      if (in_central) put_little_endian(to, uint16_t{20});  // made by
      put_little_endian(to, uint16_t{20});                  // needed to extract: 2.0
      put_little_endian(to, uint16_t{0});                   // flags
      put_little_endian(to, uint16_t{0});                   // stored
      put_little_endian(to, uint32_t{0});                   // time, date
      put_little_endian(to, crc);
      put_little_endian(to, static_cast<uint32_t>(e.data.size()));
      put_little_endian(to, static_cast<uint32_t>(e.data.size()));
      put_little_endian(to, static_cast<uint16_t>(e.name.size()));
      put_little_endian(to, uint16_t{0});  // extra
      if (in_central) {
        put_little_endian(to, uint16_t{0}), put_little_endian(to, uint16_t{0}), put_little_endian(to, uint16_t{0});  // comment, disk, internal attributes
        put_little_endian(to, uint32_t{0}), put_little_endian(to, offset);                              // external attributes, where
      }
      to += e.name;
    };
    header(out, false);
    out += e.data;
    header(central, true);
  }
  auto central_at = static_cast<uint32_t>(out.size());
  out += central;
  put_little_endian(out, uint32_t{0x06054b50});
  put_little_endian(out, uint16_t{0}), put_little_endian(out, uint16_t{0});
  put_little_endian(out, static_cast<uint16_t>(entries.size())), put_little_endian(out, static_cast<uint16_t>(entries.size()));
  put_little_endian(out, static_cast<uint32_t>(central.size())), put_little_endian(out, central_at);
  put_little_endian(out, uint16_t{0});
  return out;
}

// Row-major strides of a contiguous tensor of `shape`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

}  // namespace

std::string write_state_dict(const std::vector<Float32Tensor>& tensors) {
  Pickle p;
  p.empty_ordered_dict();
  p.mark();
  std::vector<ZipEntry> entries;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const std::string key = std::to_string(i);
    p.text(t.name);
    p.global("torch._utils", "_rebuild_tensor_v2");
    p.mark();
    p.mark();  // the persistent id: ('storage', torch.FloatStorage, key, 'cpu', numel)
    p.text("storage");
    p.global("torch", "FloatStorage");
    p.text(key);
    p.text("cpu");
    p.integer(static_cast<int64_t>(t.bytes.size() / 4));
    p.out += "tQ";
    p.integer(0);  // storage offset
    p.tuple_of(t.shape);
    p.tuple_of(contiguous_strides(t.shape));
    p.out += '\x89';  // requires_grad False
    p.empty_ordered_dict();  // backward hooks
    p.out += "tR";
    entries.push_back({"archive/data/" + key, t.bytes});
  }
  p.out += "u.";
  entries.insert(entries.begin(), {"archive/data.pkl", p.out});
  entries.push_back({"archive/byteorder", "little"});
  entries.push_back({"archive/version", "3\n"});
  return stored_zip(entries);
}

}  // namespace dlready
