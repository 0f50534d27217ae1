// The forms a report is written in (bench, experiment: --format).
#pragma once

namespace mp {

enum class OutputFormat { Markdown, Csv, Json };

}  // namespace mp
