#pragma once
// Writing an output file whole or not at all: the text goes to a temporary file in the same directory, which
// is then renamed over the name asked for (rename is atomic within a file system). A reader, or another memsim
// writing the same name at once, sees the old file or a whole new one, never a mix (50 parallel
// `memsim --plot banks --plot-out same.json` left a corrupt file in 2 of 4 trials).
#include <string>

namespace memsim {

// Writes `text` to `path`; "" on success, else why not (the temporary file is removed).
std::string write_file_atomically(const std::string& path, const std::string& text);

}  // namespace memsim
