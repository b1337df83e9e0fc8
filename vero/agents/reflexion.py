"""ReflexionAgent: attempt -> evaluate -> reflect -> retry (Shinn et al., 2023).

An executor attempts the task, an evaluator scores the attempt, and on a failure a reflector writes a short, concrete
lesson (diagnosis + new plan).  The lessons are kept in a ``ReflexionMemory`` and injected into the next attempt's task
as ``<past_reflections>``: the model learns from its failures through text, not weights.  Model calls per run:
docs/reflexion.md, "Model calls".
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any, Literal

from vero.agents._attempts import NOT_EVALUATED, Attempt, Evaluator, ReflexionMemory, Verdict, best, external_verdict
from vero.agents.react import ReActAgent
from vero.core.agent import Agent, MalformedOutputError, Tools, clip_observation, with_history
from vero.core.message import ChatModel, Message
from vero.core.options import AgentKeywords, Unpack, renamed_budget, renamed_budget_property
from vero.core.parsing import as_bool, as_score
from vero.core.result import Outcome, RunResult, Status, StepKind
from vero.core.text import SHOWS_NOTHING
from vero.errors import LLMCallError

EXECUTOR_PROMPT = """You are a careful problem solver. Solve the user's task completely and output only the answer.
If the task includes past reflections, they describe what went wrong in your earlier attempts:
follow their plan and do not repeat those mistakes."""

ATTEMPT_TASK = """{task}

{reflections}
These are lessons from your earlier failed attempts at this task. Apply them; do not repeat the same mistakes."""

EVALUATE_PROMPT = """You are a strict evaluator. Judge whether the answer correctly and completely solves the task.
Give a score from 0 to 100 (100: fully correct and complete; 0: wrong or missing).
Set "pass" to true only if the answer is correct and complete and the score is at least {pass_score}.
In "reason", name the specific error or missing part; if it passes, say briefly why it is correct.
Reply with only this JSON object:
{{"pass": true or false, "reason": "<specific reason>", "score": <0-100>}}
"""

EVALUATE_REQUEST = "## Task\n{task}\n\n## Answer\n{answer}"

REFLECT_PROMPT = """You analyse why an attempt at a task failed, so that the next attempt succeeds.
Write at most 150 words, in two parts:
Diagnosis: the specific step, tool call, assumption or line that went wrong, and the exact error or evidence.
Plan: the concrete actions the next attempt must take differently.
Be specific. Vague advice such as "be more careful" or "double-check the answer" is useless.
If past reflections are listed and the same mistake happened again, say why their plan failed
and choose a different approach.
Output only the reflection."""

REFLECT_REQUEST = """## Task
{task}

## Attempt {attempt}: what the agent did
{trajectory}

## Attempt {attempt}: answer
{answer}

## Evaluation (score {score:g}/100)
{feedback}

{past}"""

VERDICT_SCHEMA = '{"pass": true or false, "reason": "<specific reason>", "score": <number from 0 to 100>}'
MAX_REFLECTION_WORDS = 200  # the prompt asks for 150; longer replies are cut here

# Re-exported, so that `from vero.agents.reflexion import ReflexionMemory, Verdict, ...` keeps working.
__all__ = ["ReflexionAgent", "ReflexionMemory", "Attempt", "Verdict", "NOT_EVALUATED", "Evaluator"]


class ReflexionAgent(Agent):
    """Retry with verbal self-reflection, returning the best attempt.

    Args (beyond ``Agent``'s):
        max_turns: attempts at most (default 3).  ``max_attempts=`` is its deprecated old name
            (``agent.max_attempts`` reads it), with a warning.
        executor: any ``Agent`` that attempts the task (run as a sub-agent).  Default: a fresh
            ``ReActAgent`` per attempt sharing this agent's tools, llm, history and ``system_prompt``, or
            one plain generation call when there are no tools.  A given executor starts each attempt from its
            own history as it was (the lessons reach it in the task, as they reach a fresh one).
        evaluator: ``fn(task, answer) -> (passed, score, feedback)`` for external checks such as unit
            tests; its ``passed`` is final, and its feedback (shown to the reflector) must never reveal
            hidden ground truth.  One raising or returning anything else fails that attempt.  Default: an LLM judge.
        pass_score: the judge's pass mark, 0-100 (default 80).
        memory_size: how many recent reflections the next attempt sees (default 3).
        protocol: the ReAct protocol of the default executor (``ReActAgent``'s ``protocol``, default ``"text"``).

    Each run starts with an empty ``ReflexionMemory``; ``agent.memory`` (read-only) is the running or
    else the latest finished run's, read from its ``reflection`` steps.

    Statuses: ``ok`` with the first passing attempt; ``needs_review`` with the best attempt (highest score, earliest on
    ties) when none passed or the judge's output stayed unusable.  Steps: ``attempt``, ``evaluation``, ``reflection``,
    ``error`` (plus the executor's steps one level deeper).  Prompts are class attributes (``executor_prompt``,
    ``evaluate_prompt``, ``reflect_prompt``...; docs/reflexion.md).
    """

    default_max_turns = 3
    executor_prompt = EXECUTOR_PROMPT
    attempt_task = ATTEMPT_TASK
    evaluate_prompt = EVALUATE_PROMPT
    evaluate_request = EVALUATE_REQUEST
    reflect_prompt = REFLECT_PROMPT
    reflect_request = REFLECT_REQUEST
    max_attempts = renamed_budget_property("max_attempts")  # deprecated: the old name of max_turns

    def __init__(
        self,
        name: str,
        llm: ChatModel,
        tools: Tools = None,
        system_prompt: str | None = None,
        max_turns: int | None = None,
        verbose: bool = True,
        *,
        max_attempts: int | None = None,
        executor: Agent | None = None,
        evaluator: Evaluator | None = None,
        pass_score: float = 80,
        memory_size: int = 3,
        protocol: Literal["text", "native", "guided", "auto"] = "text",
        **base_options: Unpack[AgentKeywords],
    ) -> None:
        budget = renamed_budget("max_attempts", max_attempts, max_turns)
        super().__init__(name, llm, tools, system_prompt, budget, verbose, **base_options)
        self.executor = executor
        self.evaluator = evaluator
        self.pass_score = as_score(pass_score, "pass_score")
        self.memory_size = ReflexionMemory(memory_size).max_size  # checked now, not at the first run
        self.protocol = protocol

    @property
    def memory(self) -> ReflexionMemory:
        """The reflections of the run in progress, or else of the latest finished run (empty before the
        first), read from its steps: each run starts a new memory, and changing this one changes no run."""
        memory = ReflexionMemory(self.memory_size)
        for step in self.current_run.steps if self._run else self.last_result.steps if self.last_result else ():
            if step.kind == StepKind.REFLECTION and step.depth == 0:
                memory.add(step.content, step.data.get("attempt", 0))
        return memory

    # -- the loop ------------------------------------------------------------
    _solve_options: frozenset[str] | None = frozenset()  # run() takes no keyword for solve

    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        memory = ReflexionMemory(self.memory_size)
        attempts: list[Attempt] = []
        for number in self.turns():
            attempt = self._attempt(task, number, memory)  # attempt, with the reflections so far
            attempts.append(attempt)
            self.record(StepKind.ATTEMPT, attempt.answer, attempt=number, status=attempt.status)
            self.keep_partial(best(attempts).answer)
            try:
                verdict = self._evaluate(task, attempt)  # evaluate
            except MalformedOutputError as exc:
                self.record(StepKind.ERROR, exc.raw, reason=str(exc))
                return Outcome(best(attempts).answer, Status.NEEDS_REVIEW)
            attempt = attempts[-1] = replace(attempt, verdict=verdict)
            self.record(StepKind.EVALUATION, str(verdict), attempt=number, **asdict(verdict))
            self.keep_partial(best(attempts).answer)
            if verdict.passed:
                return Outcome(attempt.answer, Status.OK)
            if number < self.max_turns:  # reflect (not after the last attempt: none would read it)
                reflection = self._reflect(task, attempt, memory)
                memory.add(reflection, number)
                self.record(StepKind.REFLECTION, reflection, attempt=number)
        if not attempts:  # max_turns=0: the turn budget ends the run, as it ends every agent
            return Outcome("", Status.MAX_TURNS)
        answer = best(attempts).answer  # none passed: the best, to review; none is a failure
        if SHOWS_NOTHING.fullmatch(answer) or all(attempt.status == Status.FAILED for attempt in attempts):
            return self._no_attempt(attempts, answer)
        return Outcome(answer, Status.NEEDS_REVIEW)

    def _no_attempt(self, attempts: list[Attempt], partial: str) -> Outcome:
        """Every attempt ended without an answer (or failed, its text a partial one): ``failed``, saying why."""
        statuses = ", ".join(dict.fromkeys(str(attempt.status) for attempt in attempts))
        self.record(StepKind.ERROR, f"no attempt gave an answer ({len(attempts)} attempts, ended {statuses})")
        return Outcome("" if SHOWS_NOTHING.fullmatch(partial) else partial, Status.FAILED)

    # -- executor ----------------------------------------------------------------
    def _attempt(self, task: str, number: int, memory: ReflexionMemory) -> Attempt:
        if memory.reflections:
            task = self.attempt_task.format(task=task, reflections=memory.render())
        executor = self.executor
        if executor is None and self.tools:  # the default: a ReAct agent over the shared tools
            executor = self.subagent(
                ReActAgent, f"{self.name}-executor", system_prompt=self.system_prompt, protocol=self.protocol
            )
        if executor is None:  # no tools: one plain generation call
            system = with_history(self, self.system_prompt or self.executor_prompt)
            reply = self.call_llm([Message("system", system), Message("user", task)], **self.answer_format())
            if reply.truncated:  # cut off at the output limit: no answer, and the judge is not asked
                return Attempt(number, reply.text, Status.FAILED, "(one direct answer, cut off at the output limit)")
            return Attempt(number, reply.text, Status.OK, "(one direct answer; no tools were used)")
        kept = list(executor.history)  # a given executor's: each attempt starts from it, as a fresh one does
        try:  # (the lessons reach it as <past_reflections>; one run's attempts never reach the next run)
            result = self.run_subagent(executor, task)
        finally:
            executor.history = kept
        # the server refused the call for good (a key, a parameter): no other attempt would fare better, and the run
        # ends `failed` with that error (a timeout or an overloaded server may pass: the attempts go on)
        if isinstance(result.error, LLMCallError) and result.error.for_good:
            raise result.error
        return Attempt(number, result.answer, result.status, self._trajectory(result))

    def _trajectory(self, result: RunResult) -> str:
        shown = [s for s in result.steps if s.depth == 0 and s.kind != StepKind.THINKING]
        most = min(600, self.options.max_observation_chars)  # no more of a result than the executor's model was shown
        lines = [f"{s.kind}: {clip_observation(s.content, most)}" for s in shown]
        if result.status != Status.OK:
            lines.append(f"(the run ended with status {result.status}: {result.error or 'no answer accepted'})")
        return clip_observation("\n".join(lines) or "(no steps recorded)", 6000)

    # -- evaluator ---------------------------------------------------------------
    def _evaluate(self, task: str, attempt: Attempt) -> Verdict:
        if attempt.status == Status.FAILED or SHOWS_NOTHING.fullmatch(attempt.answer):
            return Verdict(False, 0.0, f"The attempt produced no usable answer (executor status: {attempt.status}).")
        if self.evaluator is not None:
            verdict, problem = external_verdict(self.evaluator, task, attempt.answer)
            if problem:  # that attempt fails; the next attempts go on
                self.record(StepKind.ERROR, problem, attempt=attempt.number)
            limit = self.options.max_observation_chars  # test output shown as a tool's would be
            return replace(verdict, feedback=clip_observation(verdict.feedback, limit))
        messages = [
            Message("system", self.evaluate_prompt.format(pass_score=f"{self.pass_score:g}")),
            Message("user", self.evaluate_request.format(task=task, answer=attempt.answer)),
        ]
        return self.ask_json(messages, self._read_verdict, schema=VERDICT_SCHEMA)

    def _read_verdict(self, data: dict[str, Any]) -> Verdict:
        score = as_score(data["score"])
        passed = as_bool(data["pass"], "pass") and score >= self.pass_score
        return Verdict(passed, score, str(data.get("reason") or "").strip())

    # -- reflector ---------------------------------------------------------------
    def _reflect(self, task: str, attempt: Attempt, memory: ReflexionMemory) -> str:
        verdict = attempt.verdict
        request = self.reflect_request.format(
            task=task,
            attempt=attempt.number,
            trajectory=attempt.trajectory,
            answer=attempt.answer or "(none)",
            score=verdict.score,
            feedback=verdict.feedback or "(no feedback)",
            past=memory.render(),
        )
        text = self.call_llm([Message("system", self.reflect_prompt), Message("user", request.rstrip())]).text.strip()
        words = text.split(" ")
        if len(words) > MAX_REFLECTION_WORDS:
            text = " ".join(words[:MAX_REFLECTION_WORDS]) + " ..."
        return text or f"Attempt {attempt.number} failed: {verdict.feedback}"
