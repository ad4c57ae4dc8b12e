// StdinLines reads standard input line by line for `kaisha chat` (its
// turns) and for the answers the company's questions get (chat, and `kaisha
// run` at a terminal), always on the CLI's own thread. Unlike std::getline on
// std::cin, a wait for the next line can be interrupted from another thread:
// Ctrl-C declines a question without the user having to press Enter.
//
// A line is given without its "\n" (nor a "\r" before it); the last line
// needs no "\n". A line longer than its limit (kMaxLineBytes unless the
// constructor says) is read to its end and
// reported as too long, not kept, so input cannot grow the buffer without
// bound. Lines are bytes as read: the caller checks their UTF-8.
#pragma once

#include <cstddef>
#include <string>

namespace kaisha::cli {

class StdinLines {
 public:
  static constexpr size_t kMaxLineBytes = 1 << 20;

  enum class Got { line, end, interrupted, too_long };
  struct Read {
    Got got = Got::end;
    std::string text;  // the line, for Got::line
  };

  explicit StdinLines(int fd = 0, size_t max_line_bytes = kMaxLineBytes);
  ~StdinLines();
  StdinLines(const StdinLines&) = delete;
  StdinLines& operator=(const StdinLines&) = delete;

  // The next line; blocks until it is complete, the input ends or
  // interrupt() is called. A read error counts as the end of the input.
  Read next();
  // Makes the waiting (or else the next) next() return Got::interrupted.
  // Thread-safe.
  void interrupt();
  // Forgets an interrupt() that no next() has taken yet.
  void clear_interrupt();
  // Lines read so far (the one next() just gave included).
  size_t line_number() const { return lines_; }
  // "" when `line` is well-formed UTF-8; else why not, for an error message:
  // "line N of the input is not valid UTF-8 (byte B of the line)".
  std::string utf8_problem(const std::string& line) const;

 private:
  bool take_line(Read& out);

  int fd_;
  int wake_[2] = {-1, -1};  // interrupt()'s pipe
  std::string buf_;
  bool ended_ = false;
  bool skipping_ = false;  // inside a line that grew too long: dropped up to its "\n"
  size_t lines_ = 0;
  size_t max_line_bytes_;
};

}  // namespace kaisha::cli
