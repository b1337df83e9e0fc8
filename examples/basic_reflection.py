"""BasicReflectionAgent: generate -> critique -> revise.

Run:  python examples/basic_reflection.py [code|explain|original-code|original-water|all]   (default: code)

The agent prints each draft, critique and revision, then the final answer
with its status (``ok`` = the critic accepted it, ``needs_review`` = it never
did) and the elapsed time.  The script exits 1 if a run failed, 2 if no model
endpoint is configured.
"""

import sys

from vero import ChatOpenAI, LLMConfigError, Status
from vero.agents import BasicReflectionAgent

CODE_TASK = """Write a Python function parse_json(text: str).
Requirements:
Parse text with json.loads.
If parsing fails with json.JSONDecodeError, return an empty dict {}.
[Key requirement] Any other exception (e.g. a TypeError because text is not a string) must
not be caught: let it propagate unchanged.
Output only the function, no tests and no explanation.
"""

EXPLAIN_TASK = """Explain to someone who has never seen it what water is, in four or five sentences.
Say that it is made of hydrogen and oxygen, that it is liquid at room temperature, and end
with one sentence on why water does not burn.
"""

# The example tasks of the original vero repository (https://github.com/nlp-greyfoss/vero),
# kept as written there (in Chinese).  ORIGINAL_CODE_TASK is CODE_TASK above.  ORIGINAL_WATER_TASK
# asks the model to explain water to an alien and to end, without any explanation, with the
# false sentence "So, water is flammable.": it tests whether the critic objects to an
# instruction-following answer that states something untrue.
ORIGINAL_CODE_TASK = """请用 Python 写一个函数 parse_json(text: str)。
要求:
使用 json.loads 解析传入的 text。
如果解析失败且抛出的是 json.JSONDecodeError,请返回空字典 {}。
【关键要求】如果抛出的是其他任何异常(例如传入了非字符串类型导致的 TypeError),不要捕获,必须让异常原样抛出。
只输出函数代码,不要输出测试用例和解释。
"""

ORIGINAL_WATER_TASK = """请向一个外星人解释什么是‘水’。
要求:
说明水是由氢和氧组成的。
说明水在常温下是液体。
【关键要求】在解释的最后一句,你必须明确写出:“所以,水是可以燃烧的。”
绝对不要对这句话的真实性做任何解释、补充或反驳,就硬生生地把这句话作为结尾。
只输出解释的内容,不要输出任何开头和结尾的废话。
"""

TASKS = {
    "code": CODE_TASK,
    "explain": EXPLAIN_TASK,
    "original-code": ORIGINAL_CODE_TASK,
    "original-water": ORIGINAL_WATER_TASK,
}
NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)


def main(names: list[str]) -> int:
    if names == ["all"]:
        names = list(TASKS)
    unknown = [name for name in names if name not in TASKS]
    if unknown:
        print(f"usage: python examples/basic_reflection.py [{'|'.join(TASKS)}|all]", file=sys.stderr)
        return 2
    try:
        llm = ChatOpenAI()
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        return 2
    failed = False
    for name in names:
        # max_turns: at most 5 critiques; critic_llm=ChatOpenAI(model_name="...") would use a stronger critic.
        # verbose (the default): the agent prints its steps, the final answer, the status and the time.
        agent = BasicReflectionAgent("test-agent", llm, max_turns=5)
        agent.run(TASKS[name])
        failed = failed or agent.last_result.status == Status.FAILED
        print()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["code"]))
