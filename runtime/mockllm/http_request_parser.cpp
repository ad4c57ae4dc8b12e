#include "runtime/mockllm/http_request_parser.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::mockllm {
namespace {

// A chunk-size line longer than this is garbage, not a size.
constexpr size_t kMaxChunkLine = 1024;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 32 || u >= 127 || std::string_view("()<>@,;:\\\"/[]?={}").find(c) != std::string_view::npos) return false;
  }
  return true;
}

// Does the comma-separated header value contain `token` (case-insensitive)?
bool has_token(std::string_view value, std::string_view token) {
  const std::string v = ascii_lower(value);
  size_t pos = 0;
  while (pos <= v.size()) {
    size_t comma = v.find(',', pos);
    if (comma == std::string::npos) comma = v.size();
    if (trim(std::string_view(v).substr(pos, comma - pos)) == token) return true;
    pos = comma + 1;
  }
  return false;
}

}  // namespace

std::string HttpRequest::header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return {};
}

void HttpRequestParser::feed(std::string_view bytes) {
  if (!failed_) buf_.append(bytes);
}

bool HttpRequestParser::take_continue() {
  const bool due = continue_due_;
  continue_due_ = false;
  return due;
}

HttpRequestParser::State HttpRequestParser::fail(int status, std::string message) {
  failed_ = true;
  error_status_ = status;
  error_message_ = std::move(message);
  buf_.clear();
  return State::error;
}

HttpRequestParser::State HttpRequestParser::parse_head() {
  // Robustness (RFC 9112 §2.2): empty lines before a request line are ignored.
  size_t lead = 0;
  while (buf_.compare(lead, 2, "\r\n") == 0) lead += 2;
  const size_t end = buf_.find("\r\n\r\n", lead);
  if (end == std::string::npos) {
    if (buf_.size() - lead > limits_.max_header_bytes)
      return fail(431, "request headers exceed " + std::to_string(limits_.max_header_bytes) + " bytes");
    return State::need_more;
  }
  if (end - lead > limits_.max_header_bytes)
    return fail(431, "request headers exceed " + std::to_string(limits_.max_header_bytes) + " bytes");

  const std::string_view head(buf_.data() + lead, end - lead);
  size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  HttpRequest r;
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return fail(
        400, "malformed request line \"" + std::string(line.substr(0, 200)) + "\" (expected: METHOD TARGET HTTP/1.1)");
  r.method = std::string(line.substr(0, sp1));
  r.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(r.method)) return fail(400, "malformed method \"" + r.method.substr(0, 50) + "\"");
  if (version == "HTTP/1.1")
    r.minor_version = 1;
  else if (version == "HTTP/1.0")
    r.minor_version = 0;
  else if (version.starts_with("HTTP/"))
    return fail(505, "unsupported version " + std::string(version.substr(0, 20)));
  else
    return fail(400, "malformed request line: no HTTP version in \"" + std::string(line.substr(0, 200)) + "\"");

  std::string_view path = r.target;
  if (path.starts_with("http://") || path.starts_with("https://")) {  // absolute-form
    const size_t slash = path.find('/', path.find("//") + 2);
    path = slash == std::string_view::npos ? std::string_view("/") : path.substr(slash);
  }
  if (path.empty() || (path.front() != '/' && path != "*"))
    return fail(400, "malformed request target \"" + r.target.substr(0, 200) + "\"");
  const size_t q = path.find('?');
  r.path = std::string(path.substr(0, q));
  if (q != std::string_view::npos) r.query = std::string(path.substr(q + 1));

  std::string content_length, transfer_encoding, connection, expect;
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string_view h = head.substr(start, line_end == std::string_view::npos ? line_end : line_end - start);
    const size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0 || h.front() == ' ' || h.front() == '\t' ||
        !is_token(h.substr(0, colon)))
      return fail(400, "malformed header line \"" + std::string(h.substr(0, 200)) + "\"");
    std::string name = ascii_lower(h.substr(0, colon));
    std::string value(trim(h.substr(colon + 1)));
    if (name == "content-length") {
      if (!content_length.empty() && content_length != value) return fail(400, "conflicting Content-Length headers");
      content_length = value;
    } else if (name == "transfer-encoding") {
      transfer_encoding = transfer_encoding.empty() ? value : transfer_encoding + ", " + value;
    } else if (name == "connection") {
      connection = connection.empty() ? value : connection + ", " + value;
    } else if (name == "expect") {
      expect = value;
    }
    r.headers.emplace_back(std::move(name), std::move(value));
  }

  r.keep_alive = r.minor_version == 1 ? !has_token(connection, "close") : has_token(connection, "keep-alive");
  chunked_ = false;
  content_length_ = 0;
  if (!transfer_encoding.empty()) {
    const std::string te = ascii_lower(transfer_encoding);
    if (te != "chunked" && !te.ends_with(", chunked"))
      return fail(501, "unsupported Transfer-Encoding \"" + transfer_encoding.substr(0, 100) + "\"");
    chunked_ = true;
  } else if (!content_length.empty()) {
    if (content_length.size() > 19 ||
        !std::all_of(content_length.begin(), content_length.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return fail(400, "malformed Content-Length \"" + content_length.substr(0, 50) + "\"");
    content_length_ = std::stoull(content_length);
    if (content_length_ > limits_.max_body_bytes)
      return fail(413,
                  "request body of " + content_length + " bytes exceeds " + std::to_string(limits_.max_body_bytes));
  }
  pending_ = std::move(r);
  have_head_ = true;
  body_start_ = end + 4;
  chunk_cursor_ = body_start_;
  chunks_done_ = false;
  continue_due_ = ascii_lower(expect) == "100-continue";
  return State::complete;
}

HttpRequestParser::State HttpRequestParser::parse_chunked_body() {
  while (!chunks_done_) {
    const size_t eol = buf_.find("\r\n", chunk_cursor_);
    if (eol == std::string::npos) {
      if (buf_.size() - chunk_cursor_ > kMaxChunkLine) return fail(400, "malformed chunk-size line");
      return State::need_more;
    }
    std::string_view size_line(buf_.data() + chunk_cursor_, eol - chunk_cursor_);
    size_line = trim(size_line.substr(0, size_line.find(';')));  // chunk extensions are ignored
    if (size_line.empty() || size_line.size() > 15 || !std::all_of(size_line.begin(), size_line.end(), [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c));
        }))
      return fail(400, "malformed chunk size \"" + std::string(size_line.substr(0, 50)) + "\"");
    const size_t size = std::stoull(std::string(size_line), nullptr, 16);
    if (size == 0) {
      chunks_done_ = true;
      chunk_cursor_ = eol + 2;
      break;
    }
    if (pending_.body.size() + size > limits_.max_body_bytes)
      return fail(413, "chunked request body exceeds " + std::to_string(limits_.max_body_bytes) + " bytes");
    if (buf_.size() < eol + 2 + size + 2) return State::need_more;
    if (buf_.compare(eol + 2 + size, 2, "\r\n") != 0) return fail(400, "chunk data not followed by CRLF");
    pending_.body.append(buf_, eol + 2, size);
    chunk_cursor_ = eol + 2 + size + 2;
  }
  // Trailers (ignored) end with an empty line.
  if (buf_.compare(chunk_cursor_, 2, "\r\n") == 0) {
    chunk_cursor_ += 2;
    return State::complete;
  }
  const size_t end = buf_.find("\r\n\r\n", chunk_cursor_);
  if (end == std::string::npos) {
    if (buf_.size() - chunk_cursor_ > limits_.max_header_bytes) return fail(431, "chunked trailers too long");
    return State::need_more;
  }
  chunk_cursor_ = end + 4;
  return State::complete;
}

HttpRequestParser::State HttpRequestParser::next(HttpRequest& out) {
  if (failed_) return State::error;
  if (!have_head_) {
    const State s = parse_head();
    if (s != State::complete) return s;
  }
  size_t consumed = 0;
  if (chunked_) {
    const State s = parse_chunked_body();
    if (s != State::complete) return s;
    consumed = chunk_cursor_;
  } else {
    if (buf_.size() - body_start_ < content_length_) return State::need_more;
    pending_.body.assign(buf_, body_start_, content_length_);
    consumed = body_start_ + content_length_;
  }
  out = std::move(pending_);
  pending_ = HttpRequest{};
  have_head_ = false;
  continue_due_ = false;
  buf_.erase(0, consumed);
  return State::complete;
}

}  // namespace kaisha::mockllm
