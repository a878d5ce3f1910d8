// Reader for MNIST-format IDX files (plain or gzip) and the four-file dataset layout.
// Every malformed input is an error value naming the file and what is wrong; nothing throws.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlready {

// An array's bytes: owned (decoded here), or a view into a mapped file (a decoded copy) that
// `keeper` keeps mapped. Reading is the same either way; changing a view makes it owned first.
class ByteArray {
 public:
  ByteArray() = default;
  ByteArray(std::vector<uint8_t> owned) : owned_(std::move(owned)) {}  // NOLINT: implicit, as a vector's stand-in
  ByteArray(std::initializer_list<uint8_t> values) : owned_(values) {}
  [[nodiscard]] static ByteArray view(const uint8_t* bytes, size_t size, std::shared_ptr<const void> keeper);

  const uint8_t* data() const { return keeper_ ? view_ : owned_.data(); }
  uint8_t* data() { return own().data(); }
  size_t size() const { return keeper_ ? size_ : owned_.size(); }
  bool empty() const { return size() == 0; }
  bool is_view() const { return keeper_ != nullptr; }
  uint8_t operator[](size_t i) const { return data()[i]; }
  uint8_t& operator[](size_t i) { return own()[i]; }
  uint8_t back() const { return data()[size() - 1]; }
  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size(); }
  void resize(size_t n) { own().resize(n); }
  void assign(size_t n, uint8_t value) { own().assign(n, value); }
  void clear() { *this = ByteArray(); }
  friend bool operator==(const ByteArray& a, const ByteArray& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const ByteArray& a, const std::vector<uint8_t>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  // What keeps data() valid, for a holder that outlives this array (a tensor's storage): the
  // vector moved out, or the mapping shared. The array is left empty.
  [[nodiscard]] std::shared_ptr<const void> release_keeper();

 private:
  std::vector<uint8_t>& own();
  std::vector<uint8_t> owned_;
  const uint8_t* view_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<const void> keeper_;  // set: a view
};

struct IdxArray {
  std::vector<uint32_t> dims;  // e.g. {60000, 28, 28} or {60000}
  ByteArray data;              // row-major, held once as uint8
};

struct IdxResult {
  std::optional<IdxArray> array;
  std::string error;  // "<name>: <what is wrong>"
};

// The header's dims (the array without data) and how many data bytes they declare; an error naming
// the file when the header is malformed or `header` holds less than it.
IdxResult parse_idx_header(std::string_view header, const std::string& name, uint64_t& data_bytes);
// Parses an uncompressed IDX (unsigned byte data only, like MNIST) from memory.
IdxResult parse_idx(std::string_view bytes, const std::string& name);
// gunzip with bounds: truncated or corrupt streams are errors. nullopt + error on failure.
std::optional<std::string> gunzip(std::string_view bytes, size_t max_output, std::string& error);
// Reads a file, gunzips it when it starts with the gzip magic, parses it.
IdxResult read_idx_file(const std::string& path);

struct MnistSplit {
  IdxArray images;  // N x rows x cols
  IdxArray labels;  // N
  std::string images_path, labels_path;  // the files they were read from
  size_t size() const { return labels.dims.empty() ? 0 : labels.dims[0]; }
};

struct MnistDataset {
  MnistSplit train, test;
  std::string directory;  // where the files were found
};

struct MnistResult {
  std::optional<MnistDataset> dataset;
  std::string error;
};

// How load_mnist reads: the folder of decoded copies of gzipped files (data/decoded_cache.hpp;
// empty: decode every time), and the digest the caller wants of each file (the audit log's
// BLAKE2b): `digest` computes it from the bytes as read, `on_file_digest` receives it. A decoded copy
// keeps the digest of the bytes it was decoded from, so a run that uses it does not read the file
// again: the digest then names the bytes the run's data really came from (a file changed behind
// an unchanged size and mtime is not seen, by the copy or by its digest alike).
struct MnistLoadOptions {
  std::string decoded_cache;
  std::string digest_name;  // e.g. "blake2b-256": which digest a kept one must be
  std::function<std::string(std::string_view bytes)> digest;
  std::function<void(const std::string& path, const std::string& digest)> on_file_digest;
};

// Loads DIR/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz], or the torchvision layout
// DIR/raw/… or DIR/<Name>/raw/…; checks dimensions, counts and that labels < classes.
MnistResult load_mnist(const std::string& dir, int classes = 10, const MnistLoadOptions& options = {});

}  // namespace dlready
