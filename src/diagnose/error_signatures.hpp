// The error messages users arrive with, recognised (`dlready explain`): one catalogue of
// signatures (data/error_signatures.tsv: the message's fixed text with the values it carries, the
// program that prints it, the doctor's finding ids it points to, what the message alone says to
// do, a public report quoting it). Matching is linear in the text (no std::regex: a pasted
// traceback is a stranger's text): each line is tried against each signature, table order first.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dlready {

struct ErrorSignature {
  std::string id;
  std::vector<std::string> findings;  // the catalogue's ids, most likely first
  std::string printed_by, pattern, advice, seen_in;
  // The finding the message alone proves (its words are the evidence: "… sm_120 is not compatible
  // with the current PyTorch installation" is arch-not-supported), or empty where it points to several.
  std::string decides;
};

// The table, read once.
const std::vector<ErrorSignature>& error_signatures();
// The signatures that point to finding `id` (for `dlready explain ID` and docs/findings.md).
std::vector<const ErrorSignature*> signatures_for_finding(const std::string& id);

struct SignatureMatch {
  const ErrorSignature* signature = nullptr;
  size_t line_number = 0;                     // 1-based, in the text given
  std::string line;                           // the line, printable and cut
  std::map<std::string, std::string> values;  // the pattern's {names}, and what follows from them (driver_cuda)
};

// Every line that a signature recognises, the first signature in table order per line; the same
// signature with the same values is kept once.
std::vector<SignatureMatch> match_error_signatures(std::string_view text);
// The pattern as a person reads it: "{cc:word}" is "{cc}".
std::string readable_pattern(const ErrorSignature& s);
// The signature's advice with the match's values in place of its {names}.
std::string signature_advice(const SignatureMatch& m);

}  // namespace dlready
