#include "runtime/dashboard/step_sums.hpp"

#include "runtime/store/sqlite_db.hpp"

namespace kaisha::dashboard {

StepSums::StepSums(std::unique_ptr<store::SqliteDb> db) : db_(std::move(db)) {}
StepSums::~StepSums() = default;

Result<std::unique_ptr<StepSums>> StepSums::open_read_only(const std::string& path) {
  store::SqliteDb::Options o;
  o.read_only = true;
  auto db = store::SqliteDb::open(path, o);
  if (!db) return db.error();
  return std::unique_ptr<StepSums>(new StepSums(std::move(*db)));
}

Result<std::vector<AgentSum>> StepSums::of_session(const std::string& session_id) {
  // Answered from the index on (session_id, id): no payload is read.
  auto st = db_->prepare(
      "SELECT agent, SUM(tokens_in), SUM(tokens_out), SUM(expense), count(*) FROM steps"
      " WHERE session_id = ?1 AND agent <> '' GROUP BY agent ORDER BY min(id)");
  if (!st) return st.error();
  st->bind(1, session_id);
  std::vector<AgentSum> out;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back({st->column_text(0), st->column_int(1), st->column_int(2), st->column_double(3), st->column_int(4)});
  }
}

}  // namespace kaisha::dashboard
