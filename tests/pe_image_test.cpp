// The PE reader (formats/pe_image): imports, delay imports and the machine from images the suite
// writes byte by byte (tests/pe_builder.hpp); every cut and flipped byte is an error value, never a
// crash. The mingw-built DLLs are read in tests/windows_doctor_test.cpp.
#include <gtest/gtest.h>

#include "binfmt/pe_image.hpp"
#include "pe_builder.hpp"

namespace dlready::test {
namespace {

TEST(PeImage, ReadsImportsDelayImportsAndMachine) {
  std::string dll = build_pe({0x8664, true, true, {"KERNEL32.dll", "VCRUNTIME140_1.dll", "c10.dll"}, {"nvcuda.dll"}});
  auto r = parse_pe(bytes_reader(dll));
  ASSERT_TRUE(r.image) << r.error;
  EXPECT_EQ(r.image->machine, 0x8664);
  EXPECT_EQ(pe_machine_name(r.image->machine), "x64");
  EXPECT_TRUE(r.image->pe32_plus);
  EXPECT_TRUE(r.image->is_dll);
  EXPECT_EQ(r.image->imports, (std::vector<std::string>{"KERNEL32.dll", "VCRUNTIME140_1.dll", "c10.dll"}));
  EXPECT_EQ(r.image->delay_imports, std::vector<std::string>{"nvcuda.dll"});
}

TEST(PeImage, ReadsA32BitProgram) {
  auto r = parse_pe(bytes_reader(build_pe({0x14c, false, false, {"python312.dll"}, {}})));
  ASSERT_TRUE(r.image) << r.error;
  EXPECT_EQ(pe_machine_name(r.image->machine), "x86");
  EXPECT_FALSE(r.image->pe32_plus);
  EXPECT_FALSE(r.image->is_dll);
  EXPECT_EQ(r.image->imports, std::vector<std::string>{"python312.dll"});
  EXPECT_EQ(pe_machine_name(0x1234), "0x1234");
}

TEST(PeImage, NamesWhatIsWrongWithFilesThatAreNotImages) {
  EXPECT_EQ(parse_pe(bytes_reader("")).error, "not a Windows executable or DLL (no MZ header)");
  EXPECT_EQ(parse_pe(bytes_reader("\x7f" "ELF")).error, "not a Windows executable or DLL (no MZ header)");
  std::string dos(0x40, '\0');
  dos[0] = 'M', dos[1] = 'Z';
  EXPECT_EQ(parse_pe(bytes_reader(dos)).error, "an MZ file without a PE header (a DOS program?)");
  auto unreadable = [](uint64_t, size_t) -> std::optional<std::string> { return std::nullopt; };
  EXPECT_FALSE(parse_pe(unreadable).image);
}

// Every prefix of an image and every byte changed: an answer or an error, never a crash (ASan and
// UBSan builds check the reads), and an image cut inside its tables is never read as whole.
TEST(PeImage, CutAndCorruptedImagesAreErrorsNotCrashes) {
  std::string dll = build_pe({0x8664, true, true, {"KERNEL32.dll", "msvcp140.dll"}, {"cudart64_12.dll"}});
  const size_t tables_end = 0x200 + 20 * 3 + 32 * 2;
  for (size_t cut = 0; cut < dll.size(); ++cut) {
    auto r = parse_pe(bytes_reader(dll.substr(0, cut)));
    if (cut < tables_end) {
      EXPECT_FALSE(r.image) << "cut at " << cut;
    }
    if (!r.image) {
      EXPECT_FALSE(r.error.empty()) << "cut at " << cut;
    }
  }
  for (size_t at = 0; at < 0x300; ++at) {
    std::string bad = dll;
    bad[at] = static_cast<char>(bad[at] ^ 0xff);
    auto r = parse_pe(bytes_reader(bad));
    if (r.image) {
      EXPECT_LE(r.image->imports.size(), 4096u);
    } else {
      EXPECT_FALSE(r.error.empty());
    }
  }
}

TEST(PeImage, AnImportTableThatNeverEndsIsRefused) {
  PeSpec spec;
  for (int i = 0; i < 5000; ++i) spec.imports.push_back("d" + std::to_string(i) + ".dll");
  EXPECT_EQ(parse_pe(bytes_reader(build_pe(spec))).error, "the import table does not end");
}

}  // namespace
}  // namespace dlready::test
