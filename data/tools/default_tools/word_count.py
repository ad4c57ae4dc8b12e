# A tool kaisha ships, in the format ToolCreator expects (read it as an
# example): __all__ names the class; the class declares its dependencies
# (standard library only), its inputSchema and run(**kwargs), which returns
# {"status", "message", "output"}.
import re

__all__ = ['WordCount']


class WordCount():
    dependencies = ["re"]

    inputSchema = {
        "name": "WordCount",
        "description": "Counts the words, sentences and characters of a text.",
        "parameters": {
            "type": "object",
            "properties": {
                "text": {
                    "type": "string",
                    "description": "The text to count.",
                },
            },
            "required": ["text"],
        },
    }

    def run(self, **kwargs):
        text = kwargs.get("text")
        if not isinstance(text, str):
            return {"status": "error", "message": "Missing required parameter: 'text'", "output": None}
        words = re.findall(r"\b\w+\b", text)
        sentences = [s for s in re.split(r"[.!?]+", text) if s.strip()]
        return {
            "status": "success",
            "message": "Text counted successfully",
            "output": {"words": len(words), "sentences": len(sentences), "characters": len(text)},
        }
