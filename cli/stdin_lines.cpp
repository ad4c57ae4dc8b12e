#include "cli/stdin_lines.hpp"

#include <cerrno>

#include "runtime/core/utf8.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace kaisha::cli {

StdinLines::StdinLines(int fd, size_t max_line_bytes) : fd_(fd), max_line_bytes_(max_line_bytes) {
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
}

StdinLines::~StdinLines() {
  for (int f : wake_)
    if (f >= 0) close(f);
}

void StdinLines::interrupt() {
  if (wake_[1] < 0) return;
  const char one = 1;
  [[maybe_unused]] ssize_t n = write(wake_[1], &one, 1);  // a full pipe already wakes
}

void StdinLines::clear_interrupt() {
  if (wake_[0] < 0) return;
  char drain[64];
  while (read(wake_[0], drain, sizeof drain) > 0) {
  }
}

bool StdinLines::take_line(Read& out) {
  const size_t nl = buf_.find('\n');
  if (nl == std::string::npos) {
    if (!ended_ || (buf_.empty() && !skipping_)) return false;
    // The input ended inside a last line without its "\n".
    out = skipping_ ? Read{Got::too_long, ""} : Read{Got::line, std::move(buf_)};
    buf_.clear();
    skipping_ = false;
    ++lines_;
    return true;
  }
  if (skipping_) {
    out = Read{Got::too_long, ""};
    skipping_ = false;
  } else {
    out = Read{Got::line, buf_.substr(0, nl)};
    if (!out.text.empty() && out.text.back() == '\r') out.text.pop_back();
  }
  buf_.erase(0, nl + 1);
  ++lines_;
  return true;
}

StdinLines::Read StdinLines::next() {
  for (;;) {
    Read out;
    if (take_line(out)) return out;
    if (ended_) return Read{Got::end, ""};
    if (buf_.size() > max_line_bytes_) {
      buf_.clear();
      skipping_ = true;
    }
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int ready = poll(fds, wake_[0] >= 0 ? 2 : 1, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      ended_ = true;
      continue;
    }
    if (wake_[0] >= 0 && (fds[1].revents & POLLIN)) {
      clear_interrupt();
      return Read{Got::interrupted, ""};
    }
    char chunk[64 * 1024];
    const ssize_t n = read(fd_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      ended_ = true;
      continue;
    }
    buf_.append(chunk, static_cast<size_t>(n));
  }
}

std::string StdinLines::utf8_problem(const std::string& line) const {
  size_t at = 0;
  while (at < line.size()) {
    const utf8::Decoded d = utf8::decode(std::string_view(line).substr(at));
    if (!d.ok) break;
    at += d.length;
  }
  if (at == line.size()) return "";
  return "line " + std::to_string(lines_) + " of the input is not valid UTF-8 (byte " + std::to_string(at + 1) +
         " of the line)";
}

}  // namespace kaisha::cli
