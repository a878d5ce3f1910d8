#include "core/redact.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/scan.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Replaces `value` where it stands as a whole word (a user "al" is not hidden inside "also"); a
// value that starts or ends with a non-word character (a path) matches there as it is.
// `with()` gives the replacement; it is asked only where there is one.
template <class Replacement>
std::string replace_words(const std::string& text, const std::string& value, Replacement with, bool standalone) {
  std::string out;
  size_t at = 0;
  auto joined = [](char c) { return word_char(c) || c == '/' || c == '.'; };
  const LinearFinder finder(value);
  for (size_t hit; (hit = finder.find(text, at)) != std::string::npos;) {
    size_t end = hit + value.size();
    if (standalone && ((hit > 0 && joined(text[hit - 1])) || (end < text.size() && joined(text[end])))) {
      out.append(text, at, end - at);
      at = end;
      continue;
    }
    bool left_ok = hit == 0 || !word_char(value.front()) || !word_char(text[hit - 1]);
    // "." after a word continues a host or address name ("gpu1.lab"), but ends a sentence too:
    // only ".<word char>" continues it.
    bool right_ok = end == text.size() || !word_char(value.back()) ||
                    (!word_char(text[end]) && !(text[end] == '.' && end + 1 < text.size() && word_char(text[end + 1])));
    out.append(text, at, hit - at);
    if (left_ok && right_ok) out += with();
    else out.append(text, hit, value.size());
    at = end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

bool scheme_char(char c) { return is_ascii_alnum(c) || c == '+' || c == '.' || c == '-'; }

// "https://user:password@host" -> "https://<credentials>@host": a scheme, "://", a user of no
// '/', space, ':', '@' or '"', an optional ":password" of no '/', space, '@' or '"', then '@'. Each
// "://" is looked at once and each run stops at the next "://", so the pass is linear.
std::string hide_url_credentials(const std::string& text) {
  std::string out;
  size_t copied = 0;
  for (size_t sep = text.find("://"); sep != std::string::npos; sep = text.find("://", sep + 1)) {
    size_t scheme = sep;
    while (scheme > copied && scheme_char(text[scheme - 1])) --scheme;
    while (scheme < sep && !is_ascii_alpha(text[scheme])) ++scheme;  // a scheme starts with a letter
    if (scheme == sep) continue;
    TextCursor c{text, sep + 3};
    if (c.take([](char ch) { return ch != '/' && ch != ':' && ch != '@' && ch != '"' && !is_ascii_space(ch); }).empty())
      continue;
    if (c.eat(":")) c.take([](char ch) { return ch != '/' && ch != '@' && ch != '"' && !is_ascii_space(ch); });
    if (!c.eat("@")) continue;
    out.append(text, copied, sep + 3 - copied);
    out += "<credentials>@";
    copied = c.at;
    sep = c.at - 1;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

// At `i`, a MAC address "aa:bb:cc:dd:ee:ff" standing as a word (17 characters).
bool mac_at(const std::string& s, size_t i) {
  if (i + 17 > s.size() || (i > 0 && is_word_char(s[i - 1])) || (i + 17 < s.size() && is_word_char(s[i + 17])))
    return false;
  for (size_t k = 0; k < 17; ++k)
    if (k % 3 == 2 ? s[i + k] != ':' : !is_hex_digit(s[i + k])) return false;
  return true;
}

}  // namespace

std::string without_credentials(std::string_view urls) {
  std::string out;
  for (const auto& url : split(urls, ' ')) {
    auto scheme = url.find("://");
    auto slash = scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
    auto at = scheme == std::string::npos ? std::string::npos : url.rfind('@', slash);
    bool userinfo = at != std::string::npos && at > scheme;
    out += (out.empty() ? "" : " ") + printable(userinfo ? url.substr(0, scheme + 3) + url.substr(at + 1) : url, 512);
  }
  return out;
}

bool secret_variable_name(const std::string& name) {
  std::string n = to_lower(name);
  for (const char* w : {"token", "secret", "password", "passwd", "passphrase", "credential", "apikey", "api_key",
                        "private", "auth", "_key", "key_"})
    if (n.find(w) != std::string::npos) return true;
  return n == "key";
}

Redactor::Redactor(const RedactionInputs& in) {
  auto add_kind = [this](std::vector<std::string> values, const std::string& kind, const std::string& one,
                         const std::string& many, const std::string& account = "") {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    int n = 0;
    for (const auto& v : values) {
      // Nothing personal in these, unless root is the account the doctor ran as: then it is hidden
      // where it stands alone (never inside /root, --root, rootfs).
      const bool account_root = v == "root" && v == account;
      if (v.size() < 2 || v == "/" || (v == "root" && !account_root) || v == "localhost") continue;
      ++n;
      literals_.push_back({v, kind, account_root, v, ""});
    }
    if (n) counts_[n == 1 ? one : many] = n;
  };
  std::vector<std::string> secrets;
  for (const auto& [name, value] : in.environment)
    if (secret_variable_name(name) && value.size() >= 4) secrets.push_back(value);
  add_kind(secrets, "secret", "secret value", "secret values");
  add_kind(in.homes, "home", "home directory", "home directories");
  add_shaped_homes(in.shaped_homes);
  auto users = in.users;
  if (!in.account.empty()) users.push_back(in.account);
  add_kind(users, "user", "user name", "user names", in.account);
  add_kind(in.hosts, "host", "host name", "host names");
  add_kind(in.addresses, "ip", "address", "addresses");
  std::stable_sort(literals_.begin(), literals_.end(),
                   [](const Literal& a, const Literal& b) { return a.value.size() > b.value.size(); });
}

// A shaped home is a "user" literal keyed by its last folder's name, so /root and a standalone
// "root" (the account) get one number; the rest of its path stays ("/home/", "/", "C:\\Users\\").
void Redactor::add_shaped_homes(const std::vector<std::string>& homes) {
  std::set<std::string> seen;
  for (const auto& home : homes) {
    const std::string folder = home.substr(0, home.find_last_not_of("/\\") + 1);
    const size_t cut = folder.find_last_of("/\\");
    if (cut == std::string::npos || folder.size() - cut - 1 < 2 || !seen.insert(folder).second) continue;
    literals_.push_back({folder, "user", false, folder.substr(cut + 1), folder.substr(0, cut + 1)});
  }
  if (!seen.empty()) counts_[seen.size() == 1 ? "home directory" : "home directories"] = static_cast<int>(seen.size());
}

std::string Redactor::placeholder(size_t i) const {
  const Literal& l = literals_[i];
  auto [slot, fresh] = placeholders_.emplace(l.kind + '\0' + l.key, "");
  if (fresh) slot->second = "<" + l.kind + "-" + std::to_string(++numbered_[l.kind]) + ">";
  return l.prefix + slot->second;
}

std::string Redactor::apply(const std::string& text) const { return apply_text(text, true); }

std::string Redactor::apply_text(const std::string& text, bool standalone_too) const {
  std::string out = text;
  for (size_t i = 0; i < literals_.size(); ++i)
    if (standalone_too || !literals_[i].standalone)
      out = replace_words(out, literals_[i].value, [&] { return placeholder(i); }, literals_[i].standalone);
  // By shape: URL credentials and MAC addresses (numbered in order of first appearance).
  out = hide_url_credentials(out);
  std::map<std::string, std::string> macs;
  std::string result;
  size_t at = 0;
  for (size_t i = out.find(':'); i != std::string::npos; i = out.find(':', i + 1)) {
    if (i < 2 || !mac_at(out, i - 2) || i - 2 < at) continue;  // a MAC's first ':' is its third character
    auto [slot, fresh] = macs.emplace(to_lower(out.substr(i - 2, 17)), "");
    if (fresh) slot->second = "<mac-" + std::to_string(macs.size()) + ">";
    result.append(out, at, i - 2 - at);
    result += slot->second;
    at = i - 2 + 17;
    i = at - 1;
  }
  result.append(out, at, std::string::npos);
  return result;
}

nlohmann::json Redactor::apply(const nlohmann::json& j) const {
  if (j.is_string()) return apply(j.get<std::string>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) out.push_back(apply(e));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    // A key is a name of the schema ("root", "user") or a path: a name standing alone (the account
    // "root") is hidden in values only.
    for (auto it = j.begin(); it != j.end(); ++it) out[apply_text(it.key(), false)] = apply(it.value());
    return out;
  }
  return j;
}

std::string Redactor::mask(std::string bytes) const {
  for (const auto& l : literals_)
    for (size_t at = l.standalone ? std::string::npos : bytes.find(l.value); at != std::string::npos; at = bytes.find(l.value, at + l.value.size()))
      bytes.replace(at, l.value.size(), std::string(l.value.size(), 'x'));
  return bytes;
}

std::string Redactor::summary() const {
  std::vector<std::string> parts;
  for (const auto& [what, n] : counts_) parts.push_back(std::to_string(n) + " " + what);
  parts.push_back("MAC addresses and URL credentials by their shape");
  return join(parts, ", ");
}

RedactionInputs capture_redaction(RedactionInputs hidden) {
  // A home directory is hidden through its last part, so /home/alice becomes /home/<user-1> (and
  // C:\Users\alice C:\Users\<user-1>) and a path read below it still has a folder to be in.
  // Root's home and name are hidden too: /root becomes /<user-N>, "root" where it stands alone the
  // same <user-N> (never inside --root or rootfs).
  for (const auto& home : hidden.homes) {
    std::string folder = home.substr(0, home.find_last_not_of("/\\") + 1);
    std::string last = folder.substr(folder.find_last_of("/\\") + 1);  // npos + 1 is 0: no separator
    if (last != "root" && last.size() > 1) hidden.users.push_back(last);
  }
  hidden.shaped_homes = std::move(hidden.homes);
  hidden.homes.clear();
  return hidden;
}

}  // namespace dlready
