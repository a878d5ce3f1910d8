// The IDX reader on every malformed case the training job must refuse with a clear message, and
// on the real Fashion-MNIST files from Debian's dataset-fashion-mnist.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/decoded_cache.hpp"
#include "core/crc32c.hpp"
#include "data/idx.hpp"
#include "fixture.hpp"
#include "os/fatal_signal.hpp"
#include "os/mapped_file.hpp"

namespace dlready {
namespace {

std::string be32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}
std::string images(uint32_t n, uint32_t r = 2, uint32_t c = 2) {
  return std::string("\0\0\x08\x03", 4) + be32(n) + be32(r) + be32(c) + std::string(size_t{n} * r * c, '\x07');
}
std::string labels(const std::string& values) {
  return std::string("\0\0\x08\x01", 4) + be32(static_cast<uint32_t>(values.size())) + values;
}
std::string gz(const std::string& plain) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(plain.size() + 1024, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A small valid dataset (3 train, 2 test) in a fixture dir; tests then break one file.
struct Mini {
  test::Fixture f;
  Mini() {
    f.write("/d/train-images-idx3-ubyte", images(3));
    f.write("/d/train-labels-idx1-ubyte", labels(std::string("\x01\x02\x09", 3)));
    f.write("/d/t10k-images-idx3-ubyte.gz", gz(images(2)));
    f.write("/d/t10k-labels-idx1-ubyte.gz", gz(labels(std::string("\x00\x05", 2))));
  }
  std::string dir() const { return f.host("/d"); }
};

void expect_error(const MnistResult& r, const std::string& file, const std::string& what) {
  ASSERT_FALSE(r.dataset);
  EXPECT_NE(r.error.find(file), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(what), std::string::npos) << r.error;
}

TEST(Idx, LoadsPlainAndGzip) {
  Mini m;
  auto r = load_mnist(m.dir());
  ASSERT_TRUE(r.dataset) << r.error;
  EXPECT_EQ(r.dataset->train.size(), 3u);
  EXPECT_EQ(r.dataset->test.size(), 2u);
  EXPECT_EQ(r.dataset->train.images.dims, (std::vector<uint32_t>{3, 2, 2}));
  EXPECT_EQ(r.dataset->test.labels.data[1], 5);
}

// A gzipped file is decoded once: its decoded copy is what the next load reads (shown by a copy
// changed in place), a new version of the source (its modification time) is decoded again and
// the old copy removed, a copy that is not IDX is a miss; plain files get no copy. Every file's
// digest (what the audit log records) reaches the caller either way: a gzipped file's from its
// copy, which kept the digest of the bytes it was decoded from, without reading the file again.
TEST(Idx, AGzippedFileIsDecodedOnceAndItsCopyFollowsTheSource) {
  Mini m;
  const std::string cache = m.f.host("/cache");
  std::map<std::string, std::string> seen;
  int hashed = 0;
  auto digest = [&](std::string_view bytes) {  // a stand-in digest: the bytes' count and checksum, in hex
    ++hashed;
    char hex[32];
    std::snprintf(hex, sizeof hex, "%zx%08x", bytes.size(), crc32c(bytes));
    return std::string(hex);
  };
  MnistLoadOptions o{cache, "test-digest", digest, [&](const std::string& path, const std::string& d) { seen[path] = d; }};
  auto first = load_mnist(m.dir(), 10, o);
  ASSERT_TRUE(first.dataset) << first.error;
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(hashed, 4);
  const auto first_digests = seen;
  std::vector<std::string> copies;
  for (const auto& e : std::filesystem::directory_iterator(cache)) copies.push_back(e.path().string());
  ASSERT_EQ(copies.size(), 2u) << "the two gzipped files only";
  const std::string images_gz = m.dir() + "/t10k-images-idx3-ubyte.gz";
  std::string images_copy;
  for (const auto& c : copies)  // the larger one: 2 images of 2x2 against 2 labels
    if (images_copy.empty() || std::filesystem::file_size(c) > std::filesystem::file_size(images_copy)) images_copy = c;
  // The copy changed in place (same size): the next load reads it, not the gzip file.
  std::string bytes = test::read_text(images_copy);
  bytes.back() = '\x03';
  std::ofstream(images_copy, std::ios::binary | std::ios::trunc) << bytes;
  seen.clear();
  auto second = load_mnist(m.dir(), 10, o);
  ASSERT_TRUE(second.dataset) << second.error;
  EXPECT_EQ(second.dataset->test.images.data.back(), 3) << "read from the decoded copy";
  EXPECT_EQ(seen, first_digests) << "every file's digest, the gzipped ones' from their copies";
  EXPECT_EQ(hashed, 6) << "only the two plain files were read and hashed again";
  // Asked for another digest, the copy's is not taken: the file is read and hashed.
  MnistLoadOptions other = o;
  other.digest_name = "another-digest";
  ASSERT_TRUE(load_mnist(m.dir(), 10, other).dataset);
  EXPECT_EQ(hashed, 10);
  // A new version of the source: decoded again, the stale copy gone.
  std::filesystem::last_write_time(images_gz, std::filesystem::last_write_time(images_gz) + std::chrono::seconds(5));
  auto third = load_mnist(m.dir(), 10, o);
  ASSERT_TRUE(third.dataset) << third.error;
  EXPECT_EQ(third.dataset->test.images.data.back(), 7) << "decoded from the gzip file";
  EXPECT_FALSE(std::filesystem::exists(images_copy)) << "the old version's copy is removed";
  // A copy that is not IDX is a miss, never an error.
  for (const auto& e : std::filesystem::directory_iterator(cache)) std::ofstream(e.path(), std::ios::trunc) << "garbage";
  auto fourth = load_mnist(m.dir(), 10, o);
  ASSERT_TRUE(fourth.dataset) << fourth.error;
  EXPECT_EQ(fourth.dataset->test.labels.data[1], 5);
}

// A decoded copy is mapped, not read into a buffer: the array is a view of the file's pages,
// and an array changed by its holder becomes its own (the file is never written through it).
TEST(Idx, ADecodedCopyIsAViewAndAChangedOneIsItsOwn) {
  Mini m;
  MnistLoadOptions o;
  o.decoded_cache = m.f.host("/cache");
  ASSERT_TRUE(load_mnist(m.dir(), 10, o).dataset);  // decodes, and keeps the copies
  auto again = load_mnist(m.dir(), 10, o);
  ASSERT_TRUE(again.dataset) << again.error;
  const ByteArray& mapped = again.dataset->test.images.data;
  EXPECT_TRUE(mapped.is_view()) << "the gzipped images come from their decoded copy";
  EXPECT_FALSE(again.dataset->train.images.data.is_view()) << "a plain file is read as it is";
  EXPECT_EQ(mapped, std::vector<uint8_t>(8, 7));
  ByteArray changed = mapped;
  changed[0] = 9;
  EXPECT_FALSE(changed.is_view());
  EXPECT_EQ(mapped[0], 7);
  auto third = load_mnist(m.dir(), 10, o);
  ASSERT_TRUE(third.dataset);
  EXPECT_EQ(third.dataset->test.images.data[0], 7) << "the copy on disk is unchanged";
  // The view's keeper outlives the array (as a tensor's storage holds it).
  ByteArray held = third.dataset->test.images.data;
  const uint8_t* first = std::as_const(held).data();
  auto keeper = held.release_keeper();
  third.dataset.reset();
  EXPECT_TRUE(held.empty());
  EXPECT_EQ(first[7], 7);
}

// Only a regular file is mapped: not a link to one, a FIFO (never waited on), a device node (not
// even opened), a folder, an empty file or one over the bound.
TEST(Idx, OnlyARegularFileWithinItsBoundIsMapped) {
  test::Fixture f;
  f.write("/regular", "abc");
  f.write("/empty", "");
  ASSERT_EQ(::symlink(f.host("/regular").c_str(), f.host("/link").c_str()), 0);
  ASSERT_EQ(::mkfifo(f.host("/fifo").c_str(), 0600), 0);
  std::filesystem::create_directories(f.host("/folder"));
  auto m = map_regular_file(f.host("/regular"), 3);
  ASSERT_TRUE(m);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(m->bytes), m->size), "abc");
  EXPECT_FALSE(map_regular_file(f.host("/regular"), 2)) << "over the bound";
  std::vector<std::string> refused = {"/empty", "/link", "/fifo", "/folder", "/missing"};
  if (::mknod(f.host("/device").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) refused.push_back("/device");  // as root
  for (const auto& name : refused) EXPECT_FALSE(map_regular_file(f.host(name), 100)) << name;
}

// A mapped file cut short by another process while a run reads it ends the run with SIGBUS (the
// kernel's answer, unavoidable once mapped): the line names the file and what to do, not a library.
TEST(Idx, AMappedFileCutShortWhileReadIsNamedWhenItKills) {
  test::Fixture f;
  f.write("/copy.idx", std::string(3 * 4096, 'x'));
  const std::string path = f.host("/copy.idx"), log = f.host("/stderr");
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(err, 2);
    install_fatal_signal_report("train");
    auto m = map_regular_file(path, 1 << 20);
    if (!m || ::truncate(path.c_str(), 0) != 0) ::_exit(3);
    volatile uint8_t last = m->bytes[m->size - 1];  // past the file's new end: SIGBUS
    ::_exit(last == 'x' ? 4 : 5);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const std::string out = test::read_text(log);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status) << "\n" << out;
  EXPECT_EQ(WTERMSIG(status), SIGBUS) << "it dies of the same signal";
  EXPECT_NE(out.find("dlready train: killed by SIGBUS reading " + path + ", a file mapped into memory that another "
                     "process cut short"), std::string::npos) << out;
  EXPECT_NE(out.find("→ run the command again"), std::string::npos) << out;
  EXPECT_EQ(out.find("dlready doctor"), std::string::npos) << "not a broken library\n" << out;
}

// Datasets come and go (a temporary folder's copy outlives it): the cache keeps the 16 most
// recently written copies.
TEST(Idx, TheDecodedCopiesAreBounded) {
  test::Fixture f;
  const std::string cache = f.host("/cache");
  IdxArray a{{2}, {1, 2}};
  for (int i = 0; i < 20; ++i) {
    f.write("/src/" + std::to_string(i) + ".gz", gz(labels(std::string("\x01\x02", 2))));
    write_decoded_copy(cache, f.host("/src/" + std::to_string(i) + ".gz"), a);
  }
  size_t copies = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(cache)) ++copies;
  EXPECT_EQ(copies, 16u);
  SourceDigest kept;
  auto last = read_decoded_copy(cache, f.host("/src/19.gz"), &kept);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->data, (std::vector<uint8_t>{1, 2})) << "the newest copy is kept and reads back";
  EXPECT_TRUE(kept.hex.empty()) << "written without a digest, it keeps none";
  // A digest is kept only as a name and hex digits: anything else is not written into the copy.
  write_decoded_copy(cache, f.host("/src/19.gz"), a, {"blake2b-256", "00ff"});
  ASSERT_TRUE(read_decoded_copy(cache, f.host("/src/19.gz"), &kept));
  EXPECT_EQ(kept.name, "blake2b-256");
  EXPECT_EQ(kept.hex, "00ff");
  write_decoded_copy(cache, f.host("/src/19.gz"), a, {"x y", "00ff\n"});
  ASSERT_TRUE(read_decoded_copy(cache, f.host("/src/19.gz"), &kept));
  EXPECT_TRUE(kept.hex.empty());
}

TEST(Idx, TorchvisionRawLayout) {
  Mini m;
  std::filesystem::rename(m.dir(), m.f.host("/FashionMNIST-raw"));
  m.f.mkdir("/root/FashionMNIST");
  std::filesystem::rename(m.f.host("/FashionMNIST-raw"), m.f.host("/root/FashionMNIST/raw"));
  auto r = load_mnist(m.f.host("/root"));
  ASSERT_TRUE(r.dataset) << r.error;
  EXPECT_NE(r.dataset->directory.find("FashionMNIST/raw"), std::string::npos);
}

TEST(Idx, BadMagic) {
  Mini m;
  m.f.write("/d/train-images-idx3-ubyte", "\x01\x02\x08\x03garbage");
  expect_error(load_mnist(m.dir()), "train-images-idx3-ubyte", "bad magic");
}

TEST(Idx, WrongDimensions) {
  Mini m;
  m.f.write("/d/train-images-idx3-ubyte", labels("abc"));
  expect_error(load_mnist(m.dir()), "train-images-idx3-ubyte", "expected 3 dimensions");
}

TEST(Idx, CountMismatch) {
  Mini m;
  m.f.write("/d/train-labels-idx1-ubyte", labels(std::string("\x01\x02", 2)));
  expect_error(load_mnist(m.dir()), "train-labels-idx1-ubyte", "3 images but");
}

TEST(Idx, TruncatedData) {
  Mini m;
  std::string img = images(3);
  m.f.write("/d/train-images-idx3-ubyte", img.substr(0, img.size() - 1));
  expect_error(load_mnist(m.dir()), "train-images-idx3-ubyte", "truncated");
  m.f.write("/d/train-images-idx3-ubyte", img + "x");
  expect_error(load_mnist(m.dir()), "train-images-idx3-ubyte", "unexpected bytes");
}

TEST(Idx, TruncatedAndCorruptGzip) {
  Mini m;
  std::string z = gz(images(2));
  m.f.write("/d/t10k-images-idx3-ubyte.gz", z.substr(0, z.size() / 2));
  expect_error(load_mnist(m.dir()), "t10k-images-idx3-ubyte.gz", "truncated gzip");
  std::string bad = z;
  for (size_t i = 12; i < bad.size() - 8; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  m.f.write("/d/t10k-images-idx3-ubyte.gz", bad);
  expect_error(load_mnist(m.dir()), "t10k-images-idx3-ubyte.gz", "gzip");
}

TEST(Idx, LabelOutOfRange) {
  Mini m;
  m.f.write("/d/train-labels-idx1-ubyte", labels(std::string("\x01\x0a\x02", 3)));
  expect_error(load_mnist(m.dir()), "train-labels-idx1-ubyte", "label 10 at index 1 is out of range");
}

TEST(Idx, MissingFileAndDirectory) {
  Mini m;
  m.f.remove("/d/t10k-labels-idx1-ubyte.gz");
  expect_error(load_mnist(m.dir()), "t10k-labels-idx1-ubyte", "missing");
  expect_error(load_mnist(m.f.host("/nope")), "/nope: no such directory", "apt install dataset-fashion-mnist");
  m.f.mkdir("/empty");
  expect_error(load_mnist(m.f.host("/empty")), "/empty", "no train-images-idx3-ubyte");
  // Both sources are named wherever no data is found (issue 50, item 17).
  for (const char* dir : {"/nope", "/empty"})
    for (const char* source : {"sudo apt install dataset-fashion-mnist", "datasets.FashionMNIST(ROOT, download=True)"})
      expect_error(load_mnist(m.f.host(dir)), dir, source);
}

TEST(Idx, EveryTruncationOfAHeaderIsAnError) {
  std::string img = images(1);
  for (size_t cut = 0; cut < img.size(); ++cut) EXPECT_FALSE(parse_idx(img.substr(0, cut), "x").array) << cut;
}

TEST(Idx, RealFashionMnist) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  auto r = load_mnist(dir);
  ASSERT_TRUE(r.dataset) << r.error;
  EXPECT_EQ(r.dataset->train.size(), 60000u);
  EXPECT_EQ(r.dataset->test.size(), 10000u);
  EXPECT_EQ(r.dataset->train.images.dims, (std::vector<uint32_t>{60000, 28, 28}));
  std::vector<int> per_class(10);
  for (auto l : r.dataset->train.labels.data) ++per_class[l];
  for (int c : per_class) EXPECT_EQ(c, 6000) << "Fashion-MNIST is balanced";
}

}  // namespace
}  // namespace dlready
