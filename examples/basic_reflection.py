"""BasicReflectionAgent on the two tasks of the original vero repository: generate -> critique -> revise.

Run:  python examples/basic_reflection.py [code|water]   (default: both)
"""

import sys
import time

from vero import ChatOpenAI
from vero.agents import BasicReflectionAgent

CODE_TASK = """请用 Python 写一个函数 parse_json(text: str)。
要求:
使用 json.loads 解析传入的 text。
如果解析失败且抛出的是 json.JSONDecodeError,请返回空字典 {}。
【关键要求】如果抛出的是其他任何异常(例如传入了非字符串类型导致的 TypeError),不要捕获,必须让异常原样抛出。
只输出函数代码,不要输出测试用例和解释。
"""

WATER_TASK = """请向一个外星人解释什么是‘水’。
要求:
说明水是由氢和氧组成的。
说明水在常温下是液体。
【关键要求】在解释的最后一句,你必须明确写出:“所以,水是可以燃烧的。”
绝对不要对这句话的真实性做任何解释、补充或反驳,就硬生生地把这句话作为结尾。
只输出解释的内容,不要输出任何开头和结尾的废话。
"""

TASKS = {"code": CODE_TASK, "water": WATER_TASK}

if __name__ == "__main__":
    llm = ChatOpenAI()
    for name in sys.argv[1:] or list(TASKS):
        start = time.perf_counter()
        # max_turns: at most 5 critiques; critic_llm=ChatOpenAI(model_name="...") would use a stronger critic
        agent = BasicReflectionAgent("test-agent", llm, max_turns=5)
        answer = agent.run(TASKS[name])
        print(f"🏁 Final LLM Answer: {answer}\n")
        print(f"📊 Status: {agent.last_result.status}")  # ok = accepted, needs_review = never accepted
        print(f"⏳ Elapsed: {time.perf_counter() - start:.1f} s\n")
