# A tool kaisha ships, in the format ToolCreator expects (read it as an
# example). It uses only the standard library: tools run sandboxed, without
# network access, and kaisha installs no packages for them.
import datetime

__all__ = ['DaysBetween']


class DaysBetween():
    dependencies = ["datetime"]

    inputSchema = {
        "name": "DaysBetween",
        "description": "Returns the number of days from one date to another (dates as YYYY-MM-DD).",
        "parameters": {
            "type": "object",
            "properties": {
                "start": {"type": "string", "description": "The first date, YYYY-MM-DD."},
                "end": {"type": "string", "description": "The second date, YYYY-MM-DD."},
            },
            "required": ["start", "end"],
        },
    }

    def run(self, **kwargs):
        try:
            start = datetime.date.fromisoformat(kwargs.get("start", ""))
            end = datetime.date.fromisoformat(kwargs.get("end", ""))
        except ValueError as e:
            return {"status": "error", "message": "Dates must be YYYY-MM-DD: %s" % e, "output": None}
        return {"status": "success", "message": "Days counted successfully", "output": (end - start).days}
