// Reader for MNIST-format IDX files (plain or gzip) and the four-file dataset layout.
// Every malformed input is an error value naming the file and what is wrong; nothing throws.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlready {

struct IdxArray {
  std::vector<uint32_t> dims;  // e.g. {60000, 28, 28} or {60000}
  std::vector<uint8_t> data;   // row-major, held once as uint8
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
