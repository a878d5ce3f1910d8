#include "data/idx.hpp"

#include <sys/stat.h>

#include <zlib.h>

#include <algorithm>

#include "data/decoded_cache.hpp"
#include "os/bounded_file.hpp"
#include "os/posix_fs.hpp"
#include "core/status.hpp"

namespace dlready {

ByteArray ByteArray::view(const uint8_t* bytes, size_t size, std::shared_ptr<const void> keeper) {
  ByteArray a;
  a.view_ = bytes;
  a.size_ = size;
  a.keeper_ = keeper ? std::move(keeper) : std::make_shared<int>(0);  // a view always has a keeper
  return a;
}

std::vector<uint8_t>& ByteArray::own() {
  if (keeper_) {
    owned_.assign(view_, view_ + size_);
    keeper_.reset();
    view_ = nullptr;
    size_ = 0;
  }
  return owned_;
}

std::shared_ptr<const void> ByteArray::release_keeper() {
  std::shared_ptr<const void> k = keeper_ ? std::move(keeper_) : std::make_shared<const std::vector<uint8_t>>(std::move(owned_));
  clear();
  return k;
}
namespace {

// 1 GiB of data: EMNIST ByClass, the largest MNIST-style set, is 0.55 GB; a header that claims more
// (2.7 M images from a 2 MB gzip) is refused before anything is reserved.
constexpr size_t kMaxBytes = size_t{1} << 30;

uint32_t be32(std::string_view b, size_t off) {
  return (uint32_t(uint8_t(b[off])) << 24) | (uint32_t(uint8_t(b[off + 1])) << 16) |
         (uint32_t(uint8_t(b[off + 2])) << 8) | uint32_t(uint8_t(b[off + 3]));
}

// The whole file's size an IDX header declares, once `head` holds the header; nullopt while it does
// not yet (or when the header is malformed: parse_idx then says how).
std::optional<uint64_t> declared_idx_size(std::string_view head) {
  if (head.size() < 4 || head[0] != 0 || head[1] != 0) return std::nullopt;
  size_t ndims = uint8_t(head[3]);
  if (ndims == 0 || ndims > 4 || head.size() < 4 + 4 * ndims) return std::nullopt;
  uint64_t count = 1;
  for (size_t i = 0; i < ndims; ++i) {
    count *= be32(head, 4 + 4 * i);
    if (count > kMaxBytes) return kMaxBytes + 1;
  }
  return 4 + 4 * ndims + count;
}

}  // namespace

IdxResult parse_idx_header(std::string_view b, const std::string& name, uint64_t& count) {
  auto fail = [&](const std::string& what) { return IdxResult{std::nullopt, name + ": " + what}; };
  if (b.size() < 4) return fail("file too short for an IDX header (" + std::to_string(b.size()) + " bytes)");
  if (b[0] != 0 || b[1] != 0)
    return fail("bad magic number (first two bytes must be 0; is this an IDX file?)");
  if (uint8_t(b[2]) != 0x08)
    return fail("unsupported element type 0x" + std::to_string(uint8_t(b[2])) + " (MNIST files hold unsigned bytes, 0x08)");
  size_t ndims = uint8_t(b[3]);
  if (ndims == 0 || ndims > 4) return fail("unsupported number of dimensions " + std::to_string(ndims));
  if (b.size() < 4 + 4 * ndims) return fail("truncated header (" + std::to_string(ndims) + " dimensions announced)");
  IdxArray a;
  count = 1;
  for (size_t i = 0; i < ndims; ++i) {
    uint32_t d = be32(b, 4 + 4 * i);
    a.dims.push_back(d);
    count *= d;
    if (count > kMaxBytes)
      return fail("its header declares more than " + std::to_string(kMaxBytes >> 20) + " MiB of data (no dataset of "
                  "this kind is that large)");
  }
  return {std::move(a), ""};
}

namespace {

size_t header_size(const IdxArray& a) { return 4 + 4 * a.dims.size(); }

// A gzip file's bytes as a stream: every member in turn (as Python's gzip reads them), anything
// else after the last member an error, each read bounded by what the caller asks for.
class GzipStream {
 public:
  explicit GzipStream(std::string_view in) {
    ready_ = inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;
    if (!ready_) error = "zlib initialisation failed";
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(in.size());
  }
  ~GzipStream() {
    if (ready_) inflateEnd(&z_);
  }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Up to `len` bytes into `dst`; fewer when the data ends (or `error` is set).
  size_t read(uint8_t* dst, size_t len) {
    size_t got = 0;
    while (got < len && ready_ && error.empty() && !ended_) {
      z_.next_out = dst + got;
      z_.avail_out = static_cast<uInt>(std::min<size_t>(len - got, 1u << 30));
      uInt before = z_.avail_out;
      int rc = inflate(&z_, Z_NO_FLUSH);
      got += before - z_.avail_out;
      if (rc == Z_STREAM_END) next_member();
      else if (rc == Z_BUF_ERROR || (rc == Z_OK && z_.avail_in == 0 && z_.avail_out != 0)) error = "truncated gzip stream";
      else if (rc != Z_OK) error = std::string("corrupt gzip data") + (z_.msg ? std::string(" (") + z_.msg + ")" : "");
    }
    return got;
  }
  bool ended() const { return ended_; }
  std::string error;

 private:
  void next_member() {
    if (z_.avail_in == 0) {
      ended_ = true;
    } else if (z_.avail_in >= 2 && z_.next_in[0] == 0x1f && z_.next_in[1] == 0x8b) {
      inflateReset(&z_);
    } else {
      error = std::to_string(z_.avail_in) + " bytes after the gzip data that are not another gzip member";
    }
  }
  z_stream z_{};
  bool ready_ = false, ended_ = false;
};

// A gzipped IDX file inflated straight into its array: the header first, then exactly the data it
// declares (checked against the bound before anything is reserved), then nothing more. One copy
// of the data in memory, never the decompressed file and the array both.
IdxResult inflate_idx(std::string_view in, const std::string& name) {
  auto fail = [&](const std::string& what) { return IdxResult{std::nullopt, name + ": " + what}; };
  GzipStream z(in);
  std::string head(4, '\0');
  head.resize(z.read(reinterpret_cast<uint8_t*>(head.data()), 4));
  if (head.size() == 4 && uint8_t(head[3]) <= 4) {
    size_t dims = 4 * uint8_t(head[3]);
    head.resize(4 + dims);
    head.resize(4 + z.read(reinterpret_cast<uint8_t*>(head.data()) + 4, dims));
  }
  if (!z.error.empty()) return fail(z.error);
  uint64_t count = 0;
  auto r = parse_idx_header(head, name, count);
  if (!r.array) return r;
  r.array->data.resize(static_cast<size_t>(count));
  size_t got = z.read(r.array->data.data(), r.array->data.size());
  if (!z.error.empty()) return fail(z.error);
  if (got < count)
    return fail("truncated: dimensions need " + std::to_string(count) + " data bytes, file has " + std::to_string(got));
  uint8_t extra = 0;
  if (z.read(&extra, 1) == 1) return fail("unexpected bytes after the data");
  if (!z.error.empty()) return fail(z.error);
  return r;
}

}  // namespace

IdxResult parse_idx(std::string_view b, const std::string& name) {
  uint64_t count = 0;
  auto r = parse_idx_header(b, name, count);
  if (!r.array) return r;
  size_t header = header_size(*r.array);
  size_t have = b.size() - header;
  auto fail = [&](const std::string& what) { return IdxResult{std::nullopt, name + ": " + what}; };
  if (have < count)
    return fail("truncated: dimensions need " + std::to_string(count) + " data bytes, file has " + std::to_string(have));
  if (have > count) return fail(std::to_string(have - count) + " unexpected bytes after the data");
  r.array->data = std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(b.data()) + header, reinterpret_cast<const uint8_t*>(b.data()) + b.size());
  return r;
}

std::optional<std::string> gunzip(std::string_view in, size_t max_output, std::string& error) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    error = "zlib initialisation failed";
    return std::nullopt;
  }
  std::string out;
  std::optional<uint64_t> declared;  // an IDX header's promise: stop (and reserve) at exactly that
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  char buf[1 << 16];
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      error = rc == Z_BUF_ERROR ? "truncated gzip stream" : std::string("corrupt gzip data") + (z.msg ? std::string(" (") + z.msg + ")" : "");
      inflateEnd(&z);
      return std::nullopt;
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (!declared && (declared = declared_idx_size(out))) {
      if (*declared > max_output) {
        error = "its header declares " + std::to_string(*declared) + " bytes, more than an IDX file can be (" +
                std::to_string(max_output) + ")";
        inflateEnd(&z);
        return std::nullopt;
      }
      out.reserve(static_cast<size_t>(*declared));
    }
    if (declared && out.size() > *declared) {
      error = "decompresses to more data than its header declares (" + std::to_string(*declared) + " bytes)";
      inflateEnd(&z);
      return std::nullopt;
    }
    if (out.size() > max_output) {
      error = "decompressed size exceeds " + std::to_string(max_output) + " bytes";
      inflateEnd(&z);
      return std::nullopt;
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      error = "truncated gzip stream";
      inflateEnd(&z);
      return std::nullopt;
    }
  }
  inflateEnd(&z);
  return out;
}

namespace {

bool gzipped(std::string_view bytes) { return bytes.size() >= 2 && uint8_t(bytes[0]) == 0x1f && uint8_t(bytes[1]) == 0x8b; }

// An IDX file's bytes, gzipped (by its magic) or plain, into its array.
IdxResult decode_idx(std::string_view bytes, const std::string& path) {
  return gzipped(bytes) ? inflate_idx(bytes, path) : parse_idx(bytes, path);
}

}  // namespace

IdxResult read_idx_file(const std::string& path) {
  auto file = read_regular_file(path, kMaxBytes + 64, "an IDX file");
  if (!file.bytes) return {std::nullopt, file.error};
  return decode_idx(*file.bytes, path);
}

namespace {

bool gzipped_name(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

// One file of the dataset: its decoded copy when the cache has one (a gzipped file's), else read
// and decoded (and the copy kept, with the digest of the bytes read); the digest goes to the
// caller either way, read from the copy when it kept the one asked for.
IdxResult read_dataset_file(const std::string& path, const MnistLoadOptions& o) {
  const bool cached = !o.decoded_cache.empty() && gzipped_name(path);
  const bool wants_digest = o.digest && o.on_file_digest;
  SourceDigest kept;
  std::optional<IdxArray> copy = cached ? read_decoded_copy(o.decoded_cache, path, &kept) : std::nullopt;
  const bool kept_wanted = !kept.hex.empty() && kept.name == o.digest_name;
  if (copy && (!wants_digest || kept_wanted)) {
    if (wants_digest) o.on_file_digest(path, kept.hex);
    return {std::move(copy), ""};
  }
  auto file = read_regular_file(path, kMaxBytes + 64, "an IDX file");
  if (!file.bytes) return {std::nullopt, file.error};
  SourceDigest read;
  if (wants_digest) {
    read = {o.digest_name, o.digest(*file.bytes)};
    o.on_file_digest(path, read.hex);
  }
  IdxResult r = copy ? IdxResult{std::move(copy), ""} : decode_idx(*file.bytes, path);
  if (r.array && cached && gzipped(*file.bytes)) write_decoded_copy(o.decoded_cache, path, *r.array, read);
  return r;
}

}  // namespace

namespace {

std::optional<std::string> find_file(const std::string& dir, const std::string& stem) {
  for (const auto& name : {stem, stem + ".gz"}) {
    std::string p = dir + "/" + name;
    if (path_exists(p)) return p;
  }
  return std::nullopt;
}

// Where the four files come from, both ways (issue 50, item 17).
constexpr const char* kDataSources =
    "install Debian's dataset-fashion-mnist: sudo apt install dataset-fashion-mnist; or give --data ROOT where "
    "torchvision's datasets.FashionMNIST(ROOT, download=True) (or MNIST) put them, ROOT/FashionMNIST/raw";

// The directory holding the four files: DIR, DIR/raw, or DIR/<Dataset>/raw (torchvision).
std::optional<std::string> find_dataset_dir(const std::string& dir) {
  const std::string probe = "train-images-idx3-ubyte";
  if (find_file(dir, probe)) return dir;
  if (find_file(dir + "/raw", probe)) return dir + "/raw";
  for (const auto& name : list_directory(dir))
    if (is_directory(dir + "/" + name) && find_file(dir + "/" + name + "/raw", probe)) return dir + "/" + name + "/raw";
  return std::nullopt;
}

Status load_split(const std::string& dir, const std::string& prefix, int classes, const MnistLoadOptions& o,
                  MnistSplit& split) {
  auto img_path = find_file(dir, prefix + "-images-idx3-ubyte");
  auto lbl_path = find_file(dir, prefix + "-labels-idx1-ubyte");
  if (!img_path) return Status::failure(dir + "/" + prefix + "-images-idx3-ubyte[.gz]: missing");
  if (!lbl_path) return Status::failure(dir + "/" + prefix + "-labels-idx1-ubyte[.gz]: missing");
  auto img = read_dataset_file(*img_path, o);
  if (!img.array) return Status::failure(img.error);
  auto lbl = read_dataset_file(*lbl_path, o);
  if (!lbl.array) return Status::failure(lbl.error);
  if (img.array->dims.size() != 3) return Status::failure(*img_path + ": expected 3 dimensions (N, rows, cols), found " + std::to_string(img.array->dims.size()));
  if (img.array->dims[1] == 0 || img.array->dims[2] == 0) return Status::failure(*img_path + ": empty image dimensions");
  if (lbl.array->dims.size() != 1) return Status::failure(*lbl_path + ": expected 1 dimension (N), found " + std::to_string(lbl.array->dims.size()));
  if (img.array->dims[0] != lbl.array->dims[0])
    return Status::failure(*img_path + " has " + std::to_string(img.array->dims[0]) + " images but " + *lbl_path + " has " +
           std::to_string(lbl.array->dims[0]) + " labels");
  if (lbl.array->dims[0] == 0) return Status::failure(*lbl_path + ": holds no samples");
  const ByteArray& labels = lbl.array->data;
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] >= classes)
      return Status::failure(*lbl_path + ": label " + std::to_string(labels[i]) + " at index " + std::to_string(i) +
             " is out of range (expected 0-" + std::to_string(classes - 1) + ")");
  split.images = std::move(*img.array);
  split.labels = std::move(*lbl.array);
  split.images_path = *img_path;
  split.labels_path = *lbl_path;
  return {};
}

}  // namespace

MnistResult load_mnist(const std::string& dir, int classes, const MnistLoadOptions& options) {
  if (!is_directory(dir)) {
    struct stat st {};
    bool exists = ::stat(dir.c_str(), &st) == 0;
    // The default is Debian's package; the first GPU machine lent had none, and "not a directory"
    // alone did not say what to do.
    return {std::nullopt, dir + (exists ? ": not a directory" : ": no such directory") + " (" + kDataSources + ")"};
  }
  auto where = find_dataset_dir(dir);
  if (!where)
    return {std::nullopt, dir + ": no train-images-idx3-ubyte[.gz] here, in raw/, or in */raw/ (the four MNIST-format "
                                "files; " + kDataSources + ")"};
  MnistDataset ds;
  ds.directory = *where;
  if (auto st = load_split(*where, "train", classes, options, ds.train); !st) return {std::nullopt, st.error()};
  if (auto st = load_split(*where, "t10k", classes, options, ds.test); !st) return {std::nullopt, st.error()};
  if (ds.train.images.dims[1] != ds.test.images.dims[1] || ds.train.images.dims[2] != ds.test.images.dims[2])
    return {std::nullopt, *where + ": train and test images have different sizes"};
  return {std::move(ds), ""};
}

}  // namespace dlready
