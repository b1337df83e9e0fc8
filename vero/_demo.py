"""``vero demo``: an offline tour of the agents.

A ``MockOpenAIServer`` on 127.0.0.1 plays the model with scripted replies,
and each agent talks to it through the real ``ChatOpenAI`` client, exactly as
it would talk to OpenAI.  No key, no network.  The replies are canned, so the
point is to watch each pattern's loop, not the model's intelligence.

On a terminal the tour is paced (short pauses between steps, so it can be
read as it runs); ``vero demo --fast``, or output that is not a terminal,
runs it without pauses.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time

from vero._console import agent_class, check_trace_file, print_error, step_printer
from vero.core.chat_openai import ChatOpenAI
from vero.core.events import footer_lines
from vero.core.result import Status, StepKind

SCRIPTED = "scripted model, not a real LLM"

PARSE_JSON_TASK = (
    "Write a Python function parse_json(text: str) that parses text with json.loads. "
    "If json.JSONDecodeError is raised, return {}. Any other exception (e.g. a TypeError "
    "for a non-string) must propagate. Output only the function."
)
PRICE_TASK = "A laptop costs $1,299 and is 15% off; 8% sales tax is added to the discounted price. What do I pay?"
PLAN_TASK = "How many days passed between the Apollo 11 Moon landing and the last Apollo landing (Apollo 17)?"
SECONDS_TASK = "How many seconds are there in a leap year?"
LEAP_TASK = "Write a Python function is_leap(year: int) -> bool for the Gregorian calendar. Output only the code."


def _critique(sufficient: bool, feedback: str = "", thinking: str = "") -> str:
    return json.dumps({"thinking": thinking, "is_sufficient": sufficient, "feedback": feedback})


STEP_PAUSE_S = 0.35  # on a terminal: between steps
STOP_PAUSE_S = 1.2  # and between agents
WIDTH = 78  # the headers and the text of the tour fit in 80 columns


# Each tour stop: the title, the --agent name, the tools, the task and the scripted replies.
def tour() -> list[dict]:
    return [_chat_stop(), _reflection_stop(), _react_stop(), _plan_stop(), _reflexion_stop()]


def _chat_stop() -> dict:
    return {
        "title": "ToolCallingAgent (vero chat's default): native tool calls",
        "agent": "chat",
        "tools": ["calculator"],
        "task": SECONDS_TASK,
        "replies": [
            {
                "content": "",
                "tool_calls": [{"name": "calculator", "arguments": {"expression": "366 * 24 * 60 * 60"}}],
            },
            "A leap year has 366 days of 24 hours of 3,600 seconds: 31,622,400 seconds.",
        ],
    }


def _reflection_stop() -> dict:
    return {
        "title": "BasicReflectionAgent: generate -> critique -> revise",
        "agent": "reflection",
        "task": PARSE_JSON_TASK,
        "replies": [
            "```python\nimport json\n\ndef parse_json(text: str):\n    try:\n        return json.loads(text)\n"
            "    except Exception:\n        return {}\n```",
            _critique(
                False,
                "`except Exception` also swallows the TypeError that must propagate; catch only json.JSONDecodeError.",
                "The handler is too broad.",
            ),
            "```python\nimport json\n\ndef parse_json(text: str):\n    try:\n        return json.loads(text)\n"
            "    except json.JSONDecodeError:\n        return {}\n```",
            _critique(True, "", "Only JSONDecodeError is caught; other exceptions propagate."),
        ],
    }


def _react_stop() -> dict:
    return {
        "title": "ReActAgent: Thought -> Action -> Observation -> ... -> Final Answer",
        "agent": "react",
        "tools": ["calculator"],
        "task": PRICE_TASK,
        "replies": [
            "Thought: The discounted price is 1299 * 0.85, and tax multiplies it by 1.08.\n"
            'Action: calculator\nAction Input: {"expression": "1299 * 0.85 * 1.08"}',
            "Thought: The calculator says 1192.482, which rounds to 1192.48.\nFinal Answer: You pay $1,192.48.",
        ],
    }


def _plan_stop() -> dict:
    return {
        "title": "PlanExecuteAgent: plan -> execute a step (ReAct) -> replan -> ... -> answer",
        "agent": "plan",
        "tools": ["calculator"],
        "task": PLAN_TASK,
        "replies": [
            json.dumps(
                {
                    "steps": [
                        "Find the dates of the Apollo 11 and Apollo 17 Moon landings.",
                        "Compute the number of days between the two dates.",
                    ]
                }
            ),
            # step 1, a ReAct sub-agent: the scripted model "knows" the dates
            "Thought: Apollo 11 landed on 1969-07-20 and Apollo 17 on 1972-12-11.\n"
            "Final Answer: Apollo 11 landed on 1969-07-20; Apollo 17 landed on 1972-12-11.",
            # the replanner: the task is not answered yet, step 2 remains
            json.dumps({"steps": ["Compute the number of days between the two dates."]}),
            # step 2: count the days with the calculator
            "Thought: From 1969-07-20 to 1972-07-20 is 3 years including the leap day of 1972 (1096 days); "
            "then 1972-07-20 to 1972-12-11 is 11 + 31 + 30 + 31 + 30 + 11 days.\n"
            'Action: calculator\nAction Input: {"expression": "1096 + 11 + 31 + 30 + 31 + 30 + 11"}',
            "Thought: The calculator says 1240.\nFinal Answer: 1240 days.",
            # the replanner again: the results answer the task
            json.dumps(
                {
                    "response": "1240 days passed between the Apollo 11 landing (20 July 1969) "
                    "and the Apollo 17 landing (11 December 1972)."
                }
            ),
        ],
    }


def _reflexion_stop() -> dict:
    return {
        "title": "ReflexionAgent: attempt -> evaluate -> reflect -> retry",
        "agent": "reflexion",
        "tools": [],
        "task": LEAP_TASK,
        "replies": [
            "def is_leap(year: int) -> bool:\n    return year % 4 == 0",
            json.dumps(
                {"pass": False, "score": 40, "reason": "is_leap(1900) returns True, but 1900 was not a leap year."}
            ),
            "Diagnosis: the attempt only tested divisibility by 4, so century years such as 1900 are "
            "wrongly leap years. Plan: a year is a leap year if divisible by 4 and not by 100, "
            "unless it is divisible by 400.",
            "def is_leap(year: int) -> bool:\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)",
            json.dumps(
                {
                    "pass": True,
                    "score": 95,
                    "reason": "Handles 1900 (False), 2000 (True), 2024 (True) and 2023 (False).",
                }
            ),
        ],
    }


def run_demo(out=None, fast: bool = False, trace: str | None = None) -> int:
    """Run the tour; returns 0 (the exit code) when every agent ended ``ok``.

    Paced unless ``fast`` or the output is not a terminal.  ``trace``: a JSONL file that every
    agent of the tour appends its events and model requests to (``vero trace FILE`` shows them).
    """
    # Imported here, when the demo runs, so that `vero --help` need not load them:
    import openai  # the SDK: ~0.4 s

    from vero.testing import MockOpenAIServer  # http.server, email and ssl: ~35 ms

    if trace:
        check_trace_file(trace)  # a FIFO or a device is refused, never waited on
    stream = out or sys.stdout
    paced = not fast and getattr(stream, "isatty", lambda: False)()
    pause = time.sleep if paced else (lambda seconds: None)
    say = lambda *a: print(*a, file=stream, flush=True)  # noqa: E731
    stops = tour()
    say(f"vero demo: {len(stops)} agents, each on one task.")
    say(f"The model is a local {SCRIPTED}: it plays back canned")
    say("replies on 127.0.0.1, so you can watch each pattern's loop with no API key")
    say("and no network.\n")
    statuses = []
    with MockOpenAIServer(model="vero-demo") as srv:
        # trust_env=False: a proxy configured in the environment must not capture 127.0.0.1
        llm = ChatOpenAI(
            model_name="vero-demo",
            api_key="demo",
            base_url=srv.base_url,
            max_retries=0,
            http_client=openai.DefaultHttpxClient(trust_env=False),
        )
        for number, stop in enumerate(stops, 1):
            if number > 1:
                pause(STOP_PAUSE_S)
            _say_header(say, f"{number}/{len(stops)} {stop['title']}")
            srv.enqueue(*stop["replies"])
            statuses.append(_run_stop(stop, llm, out, stream, pause, trace))
            say("")
        leftover = srv.remaining
    _say_what_next(say, len(stops), trace)
    ok = all(status == Status.OK for status in statuses) and leftover == 0
    return 0 if ok else 1


def _say_header(say, title: str) -> None:
    say("#" * WIDTH)
    for line in textwrap.wrap(title, WIDTH - 2):
        say(f"# {line}")
    say(f"# ({SCRIPTED})")
    say("#" * WIDTH)


def _run_stop(stop: dict, llm, out, stream, pause, trace: str | None) -> Status:
    """One stop of the tour: its agent runs its task, printing its steps, then the footer; its status."""
    from vero.tools.builtin import BUILTIN_TOOLS  # the sandbox runner and the search client: ~15 ms

    tools = [BUILTIN_TOOLS[name] for name in stop.get("tools", [])]
    agent = agent_class(stop["agent"])("demo", llm, tools=tools, verbose=False, trace=trace)
    printer = _tour_printer(step_printer(stream=out), pause)
    agent.events.callbacks.append(printer)
    agent.run(stop["task"])
    agent.close()
    result = agent.last_result
    print_error(result, stream)
    answer = result.answer
    if answer and "\n" in answer.strip() and answer.strip() == printer.last_text:
        answer = f"(the {printer.last_kind} above)"  # a code block is shown once
    for line in footer_lines(result.status, answer, result.elapsed_s, result.llm_calls, result.usage):
        print(line, file=stream, flush=True)
    return result.status


def _say_what_next(say, agents: int, trace: str | None) -> None:
    say("=" * WIDTH)
    say(f"Done: {agents} agents ran against the {SCRIPTED}.")
    say("To use a real model, set OPENAI_API_KEY (plus OPENAI_BASE_URL and MODEL_NAME")
    say("for a compatible provider such as DeepSeek or Qwen) in the environment or a")
    say(".env file, then run for example")
    say("    vero chat                      # chat with tools")
    say('    vero run --agent react "What is 2**20?"')
    say("For a local server (Ollama, llama.cpp, vLLM) no key is needed:")
    say("    vero chat --base-url http://localhost:11434/v1 --model llama3.1")
    if trace:
        say(f"Every request of the tour is in {trace}; see them with:  vero trace {trace}")


def _tour_printer(printer, pause):
    """The CLI's step printer, pausing after each step; a draft or revision the same
    as the one before it says so instead of printing the text again."""
    printer.last_text, printer.last_kind = None, None
    show = printer.on_step

    def on_step(event):
        kind, content = event.data["kind"], str(event.data.get("content", "")).strip()
        if kind in (StepKind.DRAFT, StepKind.REVISION) and not event.data.get("depth") and content == printer.last_text:
            printer._line(f"unchanged from the {printer.last_kind} above", f"{kind.capitalize()}:", before="📝 ")
        else:
            show(event)
        if kind in (StepKind.DRAFT, StepKind.REVISION, StepKind.ATTEMPT) and not event.data.get("depth"):
            printer.last_text, printer.last_kind = content, kind
        pause(STEP_PAUSE_S)

    printer.on_step = on_step
    return printer
