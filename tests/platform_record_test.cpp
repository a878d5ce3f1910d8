// One record per platform (issue 58): its name is the one word every layer uses, the facts find
// their platform through it alone, and the doctor runs the rule groups it lists.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "diagnose/rules.hpp"
#include "fixture.hpp"
#include "mac_fixture.hpp"
#include "platform/platform_record.hpp"

namespace dlready::test {
namespace {

TEST(PlatformRecord, EachPlatformHasOneNameOneBitAndItsRuleGroups) {
  std::set<std::string_view> names;
  unsigned bits = 0;
  for (const auto& p : platform_records()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_EQ(bits & p.bit, 0u) << p.name;
    bits |= p.bit;
    EXPECT_FALSE(p.rule_groups.empty()) << p.name;
    EXPECT_EQ(platform_named(p.name), &p);
    EXPECT_EQ(&platform_record(p.platform), &p);
  }
  EXPECT_EQ(bits, kEveryPlatform);
  EXPECT_EQ(platform_named("freebsd"), nullptr);
  // CMake's DLREADY_PLATFORM is the record's word for this build.
  ASSERT_NE(platform_named(DLREADY_BUILD_PLATFORM), nullptr) << DLREADY_BUILD_PLATFORM;
}

TEST(PlatformRecord, TheFactsFindTheirPlatformThroughTheRecord) {
  Facts f;
  EXPECT_EQ(platform_of(f).platform, Platform::linux) << "no os.id: Linux's source";
  f.os.id = "ubuntu";
  EXPECT_EQ(platform_of(f).platform, Platform::linux) << "Linux's source names the distribution";
  f.os.id = std::string(platform_record(Platform::windows).name);
  EXPECT_EQ(platform_of(f).platform, Platform::windows);
  f.os.id = std::string(platform_record(Platform::macos).name);
  EXPECT_EQ(platform_of(f).platform, Platform::macos);
  EXPECT_EQ(as_admin(platform_record(Platform::linux), "nvidia-smi -pm 1"), "sudo nvidia-smi -pm 1");
  EXPECT_EQ(as_admin(platform_record(Platform::windows), "nvidia-smi -pm 1"),
            "nvidia-smi -pm 1 (in a terminal opened as administrator)");
}

TEST(PlatformRecord, TheDoctorRunsTheRecordsGroupsAndSections) {
  Facts linux_facts;
  linux_facts.os.id = "debian";
  auto linux_report = diagnose(linux_facts);
  // No GPU in evidence: the record's sections that need one say so.
  const auto& linux_record = platform_record(Platform::linux);
  for (auto s : linux_record.not_applicable_without_gpu)
    EXPECT_NE(std::find(linux_report.not_applicable.begin(), linux_report.not_applicable.end(), std::string(s)),
              linux_report.not_applicable.end()) << s;
  EXPECT_FALSE(linux_report.recommendations.empty()) << "Linux's record recommends an install";
  Facts mac;
  mac.os.id = std::string(platform_record(Platform::macos).name);
  auto mac_report = diagnose(mac);
  EXPECT_TRUE(mac_report.recommendations.empty());
  std::vector<std::string> expected(platform_record(Platform::macos).not_applicable.begin(),
                                    platform_record(Platform::macos).not_applicable.end());
  EXPECT_EQ(mac_report.not_applicable, expected);
}

TEST(PlatformRecord, ACapturesManifestNamesThePlatformInTheRecordsWord) {
  Fixture machine, out;
  healthy_gpu_machine(machine);
  auto r = run_command(std::string(DLREADY_BINARY) + " capture --root " + machine.root + " " + out.root + "/c 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  auto manifest = nlohmann::json::parse(read_text(out.root + "/c/.dlready-capture/capture.json"), nullptr, false);
  ASSERT_TRUE(manifest.is_object());
  EXPECT_EQ(manifest.value("platform", ""), platform_record(Platform::linux).name);
  // A capture naming a platform no record has is refused in one line, with the records' words.
  Fixture odd;
  odd.write("/.dlready-capture/capture.json", "{\"format\": 1, \"platform\": \"free\\u001bbsd\"}");
  auto doctor = run_command(std::string(DLREADY_BINARY) + " doctor --root " + odd.root + " 2>&1");
  EXPECT_EQ(doctor.status, 2) << doctor.out;
  std::string names;
  for (const auto& p : platform_records()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  EXPECT_NE(doctor.out.find("is not a platform's name (" + names + ")"), std::string::npos) << doctor.out;
  EXPECT_EQ(doctor.out.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace dlready::test
