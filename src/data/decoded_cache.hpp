// Gzipped IDX files decoded once: the decoded copy of each (its IDX bytes, uncompressed) is kept in
// a cache folder under a name made of what identifies the source's version — a checksum of its
// path, its size and its modification time in nanoseconds — so a later run reads ~50 MB of
// Fashion-MNIST instead of inflating 30 MB of gzip (0.2 s on two cores). A copy that does not
// parse as the IDX it claims to be is a miss, never an error; the caller's checks (label ranges,
// dimensions) run on what it returns as on a fresh decode. The folder keeps at most 16 copies and
// 4 GiB, the least recently written going first.
#pragma once
#include <optional>
#include <string>

#include "data/idx.hpp"

namespace dlready {

// A digest of the source's bytes a copy was decoded from ("blake2b-256", hex): kept with the copy so
// that a run using the copy can say which bytes its data came from without reading them again.
struct SourceDigest {
  std::string name, hex;  // both empty: none kept
};

// The decoded copy of `source`, when the cache folder holds one for its present version; `digest`
// (when given) receives the digest kept with it.
[[nodiscard]] std::optional<IdxArray> read_decoded_copy(const std::string& cache, const std::string& source,
                                                        SourceDigest* digest = nullptr);

// Keeps `a` as the decoded copy of `source`'s present version (atomically), with the digest of the
// bytes it was decoded from, and removes the copies of its older versions. Best effort: a cache
// that cannot be written costs only the next decode.
void write_decoded_copy(const std::string& cache, const std::string& source, const IdxArray& a,
                        const SourceDigest& digest = {});

}  // namespace dlready
