// What the indexes serve of torch, for `dlready setup`'s plan (probe/index_pages.hpp): the
// simple-API page of torch on the index pip will use (--index-url, else PyPI) and on PyTorch's
// (<torch-index>torch/), fetched with curl and kept a day under ~/.cache/dlready/index/.
#pragma once
#include <optional>
#include <string>

#include "planner/install_plan.hpp"


namespace dlready {

// nullopt when no page could be read (offline, no curl, both unreachable): `note` says why.
std::optional<IndexReleases> read_torch_indexes(const PlanMachine& m, std::string& note);

}  // namespace dlready
