#include "facts/windows_answers.hpp"

namespace dlready {
namespace {

std::optional<std::string> redacted(const std::optional<std::string>& text, const Redactor& r) {
  return text ? std::optional<std::string>(r.apply(*text)) : std::nullopt;
}

std::vector<std::string> redacted(const std::vector<std::string>& texts, const Redactor& r) {
  std::vector<std::string> out;
  for (const auto& t : texts) out.push_back(r.apply(t));
  return out;
}

template <class Value>
std::map<std::string, Value> with_redacted_paths(const std::map<std::string, Value>& by_path, const Redactor& r) {
  std::map<std::string, Value> out;
  for (const auto& [path, v] : by_path) out[r.apply(path)] = v;
  return out;
}

void redact_registry(const WindowsAnswers& in, const Redactor& r, WindowsAnswers& out) {
  auto value = [&](const WindowsAnswers::RegistryValue& q) {
    return WindowsAnswers::RegistryValue{std::get<0>(q), r.apply(std::get<1>(q)), r.apply(std::get<2>(q))};
  };
  auto key = [&](const WindowsAnswers::RegistryKey& k) { return WindowsAnswers::RegistryKey{k.first, r.apply(k.second)}; };
  for (const auto& [q, v] : in.registry_texts) out.registry_texts[value(q)] = redacted(v, r);
  for (const auto& [q, v] : in.registry_numbers) out.registry_numbers[value(q)] = v;
  for (const auto& [k, v] : in.registry_subkeys) out.registry_subkeys[key(k)] = redacted(v, r);
  for (const auto& [k, v] : in.registry_text_values) {
    auto& values = out.registry_text_values[key(k)];
    for (const auto& [name, text] : v) values.push_back({r.apply(name), r.apply(text)});
  }
}

}  // namespace

WindowsAnswers redacted_answers(const WindowsAnswers& in, const Redactor& r) {
  WindowsAnswers out;
  redact_registry(in, r, out);
  out.exists = with_redacted_paths(in.exists, r);
  out.is_file = with_redacted_paths(in.is_file, r);
  out.on_network = with_redacted_paths(in.on_network, r);
  for (const auto& [dir, names] : in.listings) out.listings[r.apply(dir)] = redacted(names, r);
  for (const auto& [q, bytes] : in.files) out.files[{r.apply(q.first), q.second}] = redacted(bytes, r);
  for (const auto& [path, reads] : in.ranges) {
    auto& kept = out.ranges[r.apply(path)];
    for (const auto& [at, bytes] : reads) kept[at] = bytes ? std::optional<std::string>(r.mask(*bytes)) : std::nullopt;
  }
  for (const auto& [path, v] : in.file_versions) out.file_versions[r.apply(path)] = v;
  out.system_directory = redacted(in.system_directory, r);
  out.windows_directory = redacted(in.windows_directory, r);
  out.system = in.system;
  if (in.dxgi) {
    out.dxgi = *in.dxgi;
    for (auto& a : out.dxgi->adapters) a.name = r.apply(a.name);
  }
  return out;
}

}  // namespace dlready
