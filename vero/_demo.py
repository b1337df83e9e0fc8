"""``vero demo``: an offline tour of the agents.

A ``MockOpenAIServer`` on 127.0.0.1 plays the model with scripted replies,
and each agent talks to it through the real ``ChatOpenAI`` client, exactly as
it would talk to OpenAI.  No key, no network.  The replies are canned, so the
point is to watch each pattern's loop, not the model's intelligence.
"""

from __future__ import annotations

SCRIPTED = "scripted model, not a real LLM"

PARSE_JSON_TASK = (
    "Write a Python function parse_json(text: str) that parses text with json.loads. "
    "If json.JSONDecodeError is raised, return {}. Any other exception (e.g. a TypeError "
    "for a non-string) must propagate. Output only the function."
)
PRICE_TASK = "A laptop costs $1,299 and is 15% off; 8% sales tax is added to the discounted price. What do I pay?"
PLAN_TASK = "How many days passed between the Apollo 11 Moon landing and the last Apollo landing (Apollo 17)?"
LEAP_TASK = "Write a Python function is_leap(year: int) -> bool for the Gregorian calendar. Output only the code."


def _critique(sufficient: bool, feedback: str = "", thinking: str = "") -> str:
    import json

    return json.dumps({"thinking": thinking, "is_sufficient": sufficient, "feedback": feedback})


# Each tour stop: (title, what it shows, the --agent name, the task, the scripted replies, agent options).
def tour() -> list[dict]:
    import json

    return [
        {
            "title": "BasicReflectionAgent: generate -> critique -> revise",
            "agent": "reflection",
            "task": PARSE_JSON_TASK,
            "replies": [
                "```python\nimport json\n\ndef parse_json(text: str):\n    try:\n        return json.loads(text)\n"
                "    except Exception:\n        return {}\n```",
                _critique(False, "`except Exception` also swallows the TypeError that must propagate; "
                          "catch only json.JSONDecodeError.", "The handler is too broad."),
                "```python\nimport json\n\ndef parse_json(text: str):\n    try:\n        return json.loads(text)\n"
                "    except json.JSONDecodeError:\n        return {}\n```",
                _critique(True, "", "Only JSONDecodeError is caught; other exceptions propagate."),
            ],
        },
        {
            "title": "ReActAgent: Thought -> Action -> Observation -> ... -> Final Answer (calculator tool)",
            "agent": "react",
            "tools": ["calculator"],
            "task": PRICE_TASK,
            "replies": [
                "Thought: The discounted price is 1299 * 0.85, and tax multiplies it by 1.08.\n"
                "Action: calculator\nAction Input: {\"expression\": \"1299 * 0.85 * 1.08\"}",
                "Thought: The calculator says 1192.482, which rounds to 1192.48.\n"
                "Final Answer: You pay $1,192.48.",
            ],
        },
        {
            "title": "PlanExecuteAgent: plan -> execute each step (ReAct) -> replan -> answer",
            "agent": "plan",
            "tools": ["calculator"],
            "task": PLAN_TASK,
            "replies": [
                json.dumps({"steps": ["Find the dates of the Apollo 11 and Apollo 17 Moon landings.",
                                      "Compute the number of days between the two dates."]}),
                # step 1, a ReAct sub-agent: the scripted model "knows" the dates
                "Thought: Apollo 11 landed on 1969-07-20 and Apollo 17 on 1972-12-11.\n"
                "Final Answer: Apollo 11 landed on 1969-07-20; Apollo 17 landed on 1972-12-11.",
                json.dumps({"steps": ["Compute the number of days between 1969-07-20 and 1972-12-11."]}),
                # step 2: count the days with the calculator
                "Thought: From 1969-07-20 to 1972-07-20 is 3 years including the leap day of 1972 (1096 days); "
                "then 1972-07-20 to 1972-12-11 is 11 + 31 + 30 + 31 + 30 + 11 days.\n"
                "Action: calculator\nAction Input: {\"expression\": \"1096 + 11 + 31 + 30 + 31 + 30 + 11\"}",
                "Thought: The calculator says 1240.\nFinal Answer: 1240 days.",
                json.dumps({"response": "1240 days passed between the Apollo 11 landing (20 July 1969) "
                                        "and the Apollo 17 landing (11 December 1972)."}),
            ],
        },
        {
            "title": "ReflexionAgent: attempt -> evaluate -> reflect -> retry",
            "agent": "reflexion",
            "tools": [],
            "task": LEAP_TASK,
            "replies": [
                "def is_leap(year: int) -> bool:\n    return year % 4 == 0",
                json.dumps({"pass": False, "score": 40,
                            "reason": "is_leap(1900) returns True, but 1900 was not a leap year."}),
                "Diagnosis: the attempt only tested divisibility by 4, so century years such as 1900 are "
                "wrongly leap years. Plan: a year is a leap year if divisible by 4 and not by 100, "
                "unless it is divisible by 400.",
                "def is_leap(year: int) -> bool:\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)",
                json.dumps({"pass": True, "score": 95,
                            "reason": "Handles 1900 (False), 2000 (True), 2024 (True) and 2023 (False)."}),
            ],
        },
    ]


def run_demo(out=None) -> int:
    """Run the tour; returns 0 (the exit code) when every agent ended ``ok``."""
    import openai

    from vero.cli import agent_class, print_result, step_printer
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer
    from vero.tool.builtin import BUILTIN_TOOLS

    say = print if out is None else (lambda *a: print(*a, file=out))
    stops = tour()
    say(f"vero demo: {len(stops)} agents, each on one task.")
    say(f"The model is a local {SCRIPTED}: it plays back canned replies on 127.0.0.1,")
    say("so you can watch each pattern's loop with no API key and no network.\n")
    statuses = []
    with MockOpenAIServer(model="vero-demo") as srv:
        # trust_env=False: a proxy configured in the environment must not capture 127.0.0.1
        llm = ChatOpenAI(model_name="vero-demo", api_key="demo", base_url=srv.base_url, max_retries=0,
                         http_client=openai.DefaultHttpxClient(trust_env=False))
        for number, stop in enumerate(stops, 1):
            say("#" * 78)
            say(f"# {number}/{len(stops)} {stop['title']}")
            say(f"# ({SCRIPTED})")
            say("#" * 78)
            srv.enqueue(*stop["replies"])
            tools = [BUILTIN_TOOLS[name] for name in stop.get("tools", [])]
            agent = agent_class(stop["agent"])("demo", llm, tools=tools, verbose=False)
            agent.events.callbacks.append(step_printer(stream=out))
            agent.run(stop["task"])
            statuses.append(agent.last_result.status)
            print_result(agent.last_result, out=out, err=out)
            say("")
        leftover = srv.remaining
    say("=" * 78)
    say(f"Done: {len(stops)} agents ran against the {SCRIPTED}.")
    say("To use a real model, set OPENAI_API_KEY (plus OPENAI_BASE_URL and MODEL_NAME for a compatible")
    say("provider such as DeepSeek or Qwen) in the environment or a .env file, then run for example")
    say("    vero chat                      # chat with tools")
    say('    vero run --agent react "What is 2**20?"')
    say("For a local server (Ollama, llama.cpp, vLLM) no key is needed:")
    say("    vero chat --base-url http://localhost:11434/v1 --model llama3.1")
    ok = all(status == "ok" for status in statuses) and leftover == 0
    return 0 if ok else 1
