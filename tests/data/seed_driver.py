import time
import os
import random
from vero.core import ChatOpenAI, Agent
from vero.agents import *
from vero.tool.buildin import *
from vero.config import settings
tools = [math_calculator]
if settings.TAVILY_API_KEY:
    tools.append(google_search)
elif settings.BOCHA_API_KEY:
    tools.append(bocha_search)
else:
    tools.append(duckduckgo_search)
def run_agent(agent_class: Agent, input_text: str, max_turns=5):
    llm = ChatOpenAI()
    agent: Agent = agent_class(
        "test-agent",
        llm,
        tools=tools,
        max_turns=max_turns,
    )
    return agent.run(input_text)
def run_multi_turn_agent(agent_class: Agent, max_turns=5):
    llm = ChatOpenAI()
    agent: Agent = agent_class(
        "test-agent",
        llm,
        tools=tools,
        max_turns=max_turns,
    )
    while True:
        try:
            # Ask for user input
            user_input = input("You: ")
            # Exit condition for the loop (if user types 'bye')
            if user_input.lower() == "bye":
                print("Exiting the conversation.")
                break
            # Run the agent with the current input
            answer = agent.run(user_input)
            print(f"Assistant: {answer}\n")
        except KeyboardInterrupt:
            print("\nConversation interrupted. Exiting gracefully.")
            break
def test_single_turn_agent(agent_class: Agent, task: str, max_turns=5):
    start = time.perf_counter()
    answer = run_agent(
        agent_class,
        task,
        max_turns=max_turns,
    )
    print(f"🏁 Final LLM Answer: {answer}\n")
    print(f"⏳ Elapsed: {time.perf_counter() - start:.1f} s")
if __name__ == "__main__":
    agent_class = BasicReflectionAgent
    task = """请用 Python 写一个函数 parse_json(text: str)。
要求:
使用 json.loads 解析传入的 text。
如果解析失败且抛出的是 json.JSONDecodeError,请返回空字典 {}。
【关键要求】如果抛出的是其他任何异常(例如传入了非字符串类型导致的 TypeError),不要捕获,必须让异常原样抛出。
只输出函数代码,不要输出测试用例和解释。
"""
    test_single_turn_agent(agent_class, task)
