// --redact (the first tutorial's "do not leak sensitive data"): a doctor report or snapshot of a
// machine with a user alice, host gpu1.lab.example, an address in MASTER_ADDR and a token in the
// environment carries none of them, in text, JSON and Markdown; the same machine gives the same
// placeholders, and `dlready diff` still compares two redacted snapshots.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/redact.hpp"
#include "core/text.hpp"
#include "report/render.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

TEST(Redact, KnownValuesBecomeStablePlaceholdersAsWholeWordsOnly) {
  RedactionInputs in;
  in.users = {"alice", "bob"};
  in.homes = {"/home/alice"};
  in.hosts = {"gpu1.lab.example", "gpu1"};
  in.addresses = {"10.0.0.7"};
  in.environment = {{"HF_TOKEN", "hf_s3cr3tvalue"}, {"EPOCHS", "12345"}, {"PATH", "/usr/bin"}};
  Redactor r(in);
  std::string text =
      "user alice (also alicea) at /home/alice/venv on gpu1.lab.example (gpu1); MASTER_ADDR=10.0.0.7, "
      "10.0.0.70; token hf_s3cr3tvalue; mac 0A:1b:2c:3d:4e:5f and 0a:1b:2c:3d:4e:5f; "
      "https://bob:pw@mirror.example/simple; bob. epochs 12345; root /root";
  std::string got = r.apply(text);
  EXPECT_EQ(got,
            "user <user-1> (also alicea) at <home-1>/venv on <host-1> (<host-2>); MASTER_ADDR=<ip-1>, "
            "10.0.0.70; token <secret-1>; mac <mac-1> and <mac-1>; "
            "https://<credentials>@mirror.example/simple; <user-2>. epochs 12345; root /root");
  EXPECT_EQ(r.apply(text), got) << "the same input gives the same placeholders";
  auto j = r.apply(nlohmann::json{{"HOME", "/home/alice"}, {"alice", {"gpu1", 3}}});
  EXPECT_EQ(j, (nlohmann::json{{"HOME", "<home-1>"}, {"<user-1>", {"<host-2>", 3}}}));
  EXPECT_NE(r.summary().find("2 user names"), std::string::npos) << r.summary();
  EXPECT_TRUE(secret_variable_name("AWS_SECRET_ACCESS_KEY"));
  EXPECT_TRUE(secret_variable_name("WANDB_API_KEY"));
  EXPECT_FALSE(secret_variable_name("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(secret_variable_name("KEYBOARD"));
}

// Issue 50 item 15: a value the text does not hold takes no number, so what a user reads starts at
// <home-1> (here /home/aaron, sorted first, is another account's home that appears nowhere).
TEST(Redact, PlaceholdersStartAtOneForWhatTheTextHolds) {
  RedactionInputs in;
  in.users = {"aaron", "alice"};
  in.homes = {"/home/aaron", "/home/alice"};
  Redactor r(in);
  EXPECT_EQ(r.apply(std::string("venv /home/alice/venv of alice")), "venv <home-1>/venv of <user-1>");
  EXPECT_EQ(r.apply(std::string("then /home/aaron")), "then <home-2>") << "numbers go on across texts";
  EXPECT_EQ(r.apply(std::string("/home/alice")), "<home-1>") << "and stay what they were";
}

// alice's machine: a GPU, her venv under /home/alice, a host name, and a file of her own.
void alices_machine(Fixture& f) {
  healthy_gpu_machine(f);
  f.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
  f.write("/etc/hostname", "gpu1.lab.example\n");
}

TEST(Redact, DoctorReportsCarryNoNameHostAddressOrSecret) {
  Fixture f;
  alices_machine(f);
  const std::string env = "env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice MASTER_ADDR=10.0.0.7 "
                          "HF_TOKEN=hf_s3cr3tvalue VIRTUAL_ENV=/home/alice/venv ";
  const std::string doctor = env + DLREADY_BINARY + " doctor --no-driver-probe --no-cache --root " + f.root;
  for (const char* format : {"", " --json", " --markdown"}) {
    auto plain = command_output(doctor + format);
    ASSERT_NE(plain.find("/home/alice"), std::string::npos) << "the fixture must show what is hidden" << format;
    auto hidden = command_output(doctor + format + " --redact");
    ASSERT_GT(hidden.size(), plain.size() / 2) << format;
    for (const char* secret : {"alice", "gpu1", "lab.example", "10.0.0.7", "hf_s3cr3tvalue"})
      EXPECT_EQ(hidden.find(secret), std::string::npos) << secret << " in the redacted report" << format;
    EXPECT_NE(hidden.find("<home-1>/venv"), std::string::npos) << format;
    EXPECT_EQ(command_output(doctor + format + " --redact"), hidden) << "placeholders are stable" << format;
  }
  auto json = nlohmann::json::parse(command_output(doctor + " --json --redact"), nullptr, false);
  ASSERT_FALSE(json.is_discarded()) << "redacted JSON is still JSON";
  EXPECT_NE(command_output(doctor + " --markdown").find("--markdown --redact"), std::string::npos);
  EXPECT_NE(command_output(doctor + " --markdown --redact").find("> Redacted (`--redact`):"), std::string::npos);
}

// Issue 62, item 2: "<home-1>" in Markdown prose is an HTML tag, which GitHub drops
// ("VIRTUAL_ENV=/.cache/..."): there it is "&lt;home-1&gt;"; in a code span it stays as it is.
TEST(Redact, MarkdownKeepsItsPlaceholdersVisible) {
  Fixture f;
  alices_machine(f);
  const std::string doctor = "env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice VIRTUAL_ENV=/home/alice/venv " +
                             std::string(DLREADY_BINARY) + " doctor --no-driver-probe --no-cache --markdown --redact --root " + f.root;
  const std::string md = command_output(doctor);
  ASSERT_NE(md.find("&lt;home-1&gt;/venv"), std::string::npos) << md;
  EXPECT_EQ(md.find("&lt;br&gt;"), std::string::npos) << "the table's own line breaks stay";
  // Outside code spans and fenced blocks, no raw placeholder is left for CommonMark to drop.
  bool fenced = false;
  for (const auto& line : split(md, '\n')) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced) continue;
    std::string prose;
    bool code = false;
    for (char c : line) {
      if (c == '`') code = !code;
      else if (!code) prose += c;
    }
    EXPECT_EQ(prose.find("<home-"), std::string::npos) << line;
    EXPECT_EQ(prose.find("<user-"), std::string::npos) << line;
  }
  EXPECT_EQ(md_escape_placeholders("a <home-1> `b <home-1>` <br> ``c ` <user-2>``\n```\n<ip-1>\n```\n<ip-1>"),
            "a &lt;home-1&gt; `b <home-1>` <br> ``c ` <user-2>``\n```\n<ip-1>\n```\n&lt;ip-1&gt;");
}

// Issue 35, item 13: the account the doctor ran as is hidden even when it is root — where it
// stands alone ("for root", "user": "root"), never inside /root, --root or rootfs.
TEST(Redact, TheAccountIsHiddenEvenWhenItIsRoot) {
  RedactionInputs in;
  in.account = "root";
  in.users = {"alice"};
  Redactor r(in);
  EXPECT_EQ(r.apply(std::string("nodes for root; \"user\": \"root\"; /root/x, --root DIR, rootfs, alice")),
            "nodes for <user-2>; \"user\": \"<user-2>\"; /root/x, --root DIR, rootfs, <user-1>");
  EXPECT_NE(r.summary().find("2 user names"), std::string::npos) << r.summary();
  Fixture f;
  healthy_gpu_machine(f);
  auto json = command_output("env -i PATH=/usr/bin:/bin HOME=/root USER=root " + std::string(DLREADY_BINARY) +
                             " doctor --json --redact --no-driver-probe --no-cache --root " + f.root);
  auto j = nlohmann::json::parse(json, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json;
  EXPECT_EQ(j["facts"]["device_nodes"]["user"].get<std::string>().rfind("<user-", 0), 0u) << j["facts"]["device_nodes"].dump();
  EXPECT_EQ(json.find(": \"root\""), std::string::npos) << json;
  EXPECT_TRUE(j["facts"].contains("root")) << "a key of the schema is not the account's name";
}

TEST(Redact, TwoRedactedSnapshotsStillDiff) {
  Fixture f;
  alices_machine(f);
  const std::string env = "env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice VIRTUAL_ENV=/home/alice/venv ";
  const std::string snap = env + DLREADY_BINARY + " snapshot --no-driver-probe --redact --root " + f.root;
  ASSERT_EQ(std::system((snap + " --out " + f.root + "/a.json 2>/dev/null").c_str()), 0);
  replace_driver(f, "535.183.01", "");
  ASSERT_EQ(std::system((snap + " --out " + f.root + "/b.json 2>/dev/null").c_str()), 0);
  auto a = command_output("cat " + f.root + "/a.json");
  EXPECT_EQ(a.find("alice"), std::string::npos);
  EXPECT_NE(a.find("<home-1>/venv"), std::string::npos);
  auto diff = command_output(std::string(DLREADY_BINARY) + " diff " + f.root + "/a.json " + f.root + "/b.json");
  EXPECT_NE(diff.find("535.183.01"), std::string::npos) << diff;
  EXPECT_EQ(diff.find("<home-1>"), std::string::npos) << "the same placeholder on both sides is no difference:\n" << diff;
}

}  // namespace
}  // namespace dlready::test
