"""Reading structured data out of model text, one module per job.

- ``json_text``: JSON objects and values in replies and tool arguments;
- ``react_text``: ReAct's ``Thought:`` / ``Action:`` / ``Final Answer:`` replies;
- ``text_calls``: tool calls a model wrote as its whole reply;
- ``tool_output``: error reports, JSON records and float noise in tool output;
- ``verdicts``: yes/no and 0-100 scores.

Every reply parser runs in linear time (``benchmarks/parse_speed.py`` measures it).
The names below are the ones the rest of vero imports from here.
"""

from vero.core.parsing.json_text import (
    args_text,
    normalized_arguments,
    parse_json_object,
    parse_json_value,
    unclosed_json,
    valid_text,
)
from vero.core.parsing.react_text import (
    OBSERVATION_LABEL,
    ReActStep,
    final_answer_text,
    parse_action_input,
    parse_react,
)
from vero.core.parsing.text_calls import calls_in_prose, strip_template_tags, tool_calls_in_text
from vero.core.parsing.tool_output import call_worked, reports_error, tidy_numbers
from vero.core.parsing.verdicts import as_bool, as_score, parse_bool

__all__ = ["args_text", "normalized_arguments", "parse_json_object", "parse_json_value", "unclosed_json", "valid_text"]
__all__ += ["OBSERVATION_LABEL", "ReActStep", "final_answer_text", "parse_action_input", "parse_react"]
__all__ += ["calls_in_prose", "strip_template_tags", "tool_calls_in_text"]
__all__ += ["call_worked", "reports_error", "tidy_numbers"]
__all__ += ["as_bool", "as_score", "parse_bool"]
