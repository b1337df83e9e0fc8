"""What a user from pydantic-ai, the OpenAI Agents SDK or another MCP client writes first, read as they mean it
or refused at once: a per-call approval function, a static method, a misspelled MCP argument, the tool lists of
other clients' config files, a tuple's places, every problem of a pydantic argument, a typed sub-agent."""

from __future__ import annotations

import dataclasses
import datetime
import json
import sys
from typing import Any

import pydantic
import pytest
from test_mcp import NOTES, notes_server

from vero import tool
from vero.agents import ToolCallingAgent
from vero.testing import ScriptedLLM
from vero.tools import ToolRegistry
from vero.tools.mcp import MCPError, servers_from_config


def refund(order: str) -> str:
    """Refund an order."""
    return "refunded"


# -- a switch that is not True or False would be read as False: a call run unasked ------------------------------
@pytest.mark.parametrize("value", [lambda *args: True, 1, "yes"])
def test_needs_approval_that_is_no_bool_is_refused_when_the_tool_is_made(value):
    with pytest.raises(TypeError, match="needs_approval must be True or False"):
        tool(refund, needs_approval=value)


def test_a_function_as_needs_approval_is_told_where_per_call_decisions_go():
    with pytest.raises(TypeError, match="approve_tool=<function>"):
        tool(refund, needs_approval=lambda context, params, call_id: True)


def test_read_only_that_is_no_bool_is_refused_too():
    with pytest.raises(TypeError, match="read_only must be True or False"):
        tool(refund, read_only=1)


def test_true_false_and_unset_switches_are_taken():
    assert tool(refund, needs_approval=True).needs_approval and not tool(refund, needs_approval=False).needs_approval
    assert tool(refund).read_only is False and tool(refund, read_only=True).read_only


# -- @tool over @staticmethod ---------------------------------------------------------------------------------
def shop_class() -> type:
    """A class whose tools are static methods (made in a test: at the class's making is where it failed)."""

    class Shop:
        @tool
        @staticmethod
        def double(x: int) -> int:
            """Double a number."""
            return x * 2

        @tool
        @staticmethod
        def echo(text):  # no annotation: still the argument, never the instance
            """Say it back."""
            return text

    return Shop


def test_a_tool_over_a_static_method_is_made_with_its_parameters():
    assert shop_class().double.schema["function"]["parameters"]["properties"] == {"x": {"type": "integer"}}


def test_a_static_methods_tool_read_from_an_instance_is_not_bound_to_it():
    shop = shop_class()
    registry = ToolRegistry([shop().echo, shop().double])
    assert registry.run("echo", {"text": "hi"}).output == "hi"
    assert registry.run("double", {"x": 4}).output == "8"
    assert shop.double(3) == 6


# -- an MCP server drops a name its schema does not list ---------------------------------------------------------
def test_an_mcp_call_with_another_spelling_of_a_listed_name_is_refused_before_it_is_sent():
    with notes_server() as server:
        registry = ToolRegistry(server.tools())
        result = registry.run("write_note", {"title": "a", "text": "b", "Ti-tle": "c"})
        assert not result.ok and "unexpected argument(s): Ti-tle" in result.output
        assert "no note titled 'a'" in registry.run("read_note", {"title": "a"}).output  # nothing was written


@pytest.mark.parametrize("spelling", ["dryrun", "dry-run", "dryRun", "DRY_RUN"])
def test_another_spelling_of_a_parameter_is_no_extra_argument(spelling):
    @tool
    def purge(table: str, dry_run: bool = False, **options: Any) -> str:
        """Delete a table's rows."""
        return f"dry_run={dry_run} options={options}"

    result = ToolRegistry([purge]).run("purge", {"table": "t", spelling: True})
    assert not result.ok and f"unexpected argument(s): {spelling}" in result.output


@pytest.mark.parametrize("name", ["brightness", "tags", "entity"])
def test_a_name_unlike_any_parameter_still_reaches_kwargs(name):
    @tool
    def turn_on(entity_id: str, tag: str = "", **service_data: Any) -> str:
        """Turn a device on."""
        return f"{entity_id} {service_data}"

    assert ToolRegistry([turn_on]).run("turn_on", {"entity_id": "light.hall", name: 1}).output == (
        f"light.hall {{'{name}': 1}}"
    )


# -- other clients' tool lists in a config file ---------------------------------------------------------------
def config_with(tmp_path, **settings):
    path = tmp_path / "mcp.json"
    entry = {"command": sys.executable, "args": [NOTES], **settings}
    path.write_text(json.dumps({"mcpServers": {"notes": entry}}))
    return str(path)


@pytest.mark.parametrize("key", ["disabledTools", "excludeTools"])
def test_a_tool_a_config_disables_is_not_offered(tmp_path, key):
    pytest.importorskip("mcp")
    [server] = servers_from_config(config_with(tmp_path, **{key: ["delete_note"]}))
    with server:
        names = [found.name for found in server.tools()]
    assert "delete_note" not in names and "read_note" in names


def test_a_config_that_includes_tools_offers_only_those(tmp_path):
    pytest.importorskip("mcp")
    [server] = servers_from_config(config_with(tmp_path, includeTools=["read_note", "add"]))
    with server:
        assert sorted(found.name for found in server.tools()) == ["add", "read_note"]


def test_a_disabled_tool_called_anyway_is_an_unknown_tool_and_does_not_run(tmp_path):
    pytest.importorskip("mcp")
    [server] = servers_from_config(config_with(tmp_path, disabledTools=["write_note"]))
    call = {"tool_calls": [{"name": "write_note", "arguments": {"title": "t", "text": "x"}}]}
    with server:
        agent = ToolCallingAgent("a", ScriptedLLM([call, "done"]), tools=server.tools(), verbose=False)
        agent.run("write a note t saying x")
    [observation] = agent.last_result.steps_of("observation")
    assert "unknown tool 'write_note'" in observation.content


def test_a_tool_list_that_is_no_list_of_names_is_a_usage_error(tmp_path):
    with pytest.raises(MCPError, match='"disabledTools" must be a list of strings'):
        servers_from_config(config_with(tmp_path, disabledTools="delete_note"))


def test_auto_approve_in_a_config_grants_nothing(tmp_path):
    pytest.importorskip("mcp")
    [server] = servers_from_config(config_with(tmp_path, autoApprove=["write_note"], alwaysAllow=["write_note"]))
    with server:
        assert not any(found.read_only for found in server.tools())


@pytest.mark.parametrize("transport_key", ["transportType", "transport", "type"])
def test_an_sse_entry_says_the_transport_is_not_supported_under_each_clients_key(tmp_path, transport_key):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"remote": {"url": "http://127.0.0.1:9/sse", transport_key: "sse"}}}))
    with pytest.raises(MCPError, match="old SSE transport is not supported"):
        servers_from_config(str(path))


def test_a_list_of_servers_is_named_as_a_list_not_as_missing(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"mcpServers": [{"name": "notes", "command": "x"}]}))
    with pytest.raises(MCPError, match='"mcpServers" holds a list, not an object of servers by name'):
        servers_from_config(str(path))


def test_the_servers_of_a_vs_code_settings_file_are_read_under_mcp(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"editor.fontSize": 12, "mcp": {"servers": {"notes": {"command": "notes-mcp"}}}}))
    assert [server.name for server in servers_from_config(str(path))] == ["notes"]


# -- a tuple's places -------------------------------------------------------------------------------------------
@tool
def place_piece(position: tuple[int, str]) -> str:
    """Place a piece on a row and a column letter."""
    return f"{position!r}"


def test_a_tuples_places_are_in_its_schema_and_in_what_the_model_reads():
    schema = place_piece.schema["function"]["parameters"]["properties"]["position"]
    assert schema["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert "position: [integer, string]" in place_piece.signature()


def test_a_tuple_written_in_the_wrong_order_is_refused_and_the_order_is_named():
    result = ToolRegistry([place_piece]).run("place_piece", {"position": ["B", 3]})
    assert not result.ok and "position[0] (expected integer" in result.output and "[integer, string]" in result.output


# -- every problem of a pydantic argument in one observation ---------------------------------------------------
class Order(pydantic.BaseModel):
    order_id: str
    quantity: int = pydantic.Field(ge=1, le=10)
    when: datetime.datetime

    @pydantic.field_validator("order_id")
    @classmethod
    def starts_with_o(cls, value: str) -> str:
        if not value.startswith("O-"):
            raise ValueError("order ids start with O-")
        return value


@tool
def place(order: Order) -> str:
    """Place an order."""
    return "placed"


def test_a_pydantic_arguments_own_problems_and_the_validators_are_named_together():
    output = ToolRegistry([place]).run("place", {"order": {"order_id": "X-1", "quantity": 11, "when": "soon"}}).output
    assert "order.quantity (expected at most 10" in output
    assert "order ids start with O-" in output and "order.when" in output


def test_a_place_vero_named_is_not_named_again_by_pydantic():
    output = ToolRegistry([place]).run("place", {"order": {"order_id": "O-1", "quantity": 11, "when": "soon"}}).output
    assert output.count("order.quantity") == 1


# -- an agent as a tool: typed, and the calls a failed sub-run made ------------------------------------------
@dataclasses.dataclass
class Quote:
    price: int


def test_an_agent_as_a_tool_gives_its_typed_output_as_json():
    quoter = ToolCallingAgent("quoter", ScriptedLLM(['{"price": "x"}', '{"price": 12}']), verbose=False)
    call = {"tool_calls": [{"name": "quoter", "arguments": {"task": "a quote"}}]}
    boss = ToolCallingAgent(
        "boss", ScriptedLLM([call, "12."]), tools=[quoter.as_tool(output_type=Quote)], verbose=False
    )
    boss.run("get a quote")
    [observation] = [step for step in boss.last_result.steps_of("observation") if step.depth == 0]
    assert json.loads(observation.content) == {"price": 12} and observation.data["ok"]


def test_an_agent_as_a_tool_whose_answer_never_fits_is_an_error_observation():
    quoter = ToolCallingAgent("quoter", ScriptedLLM(["nope"] * 3), verbose=False)
    call = {"tool_calls": [{"name": "quoter", "arguments": {"task": "a quote"}}]}
    boss = ToolCallingAgent(
        "boss", ScriptedLLM([call, "none"]), tools=[quoter.as_tool(output_type=Quote)], verbose=False
    )
    boss.run("get a quote")
    [observation] = [step for step in boss.last_result.steps_of("observation") if step.depth == 0]
    assert not observation.data["ok"] and "ended 'invalid_output'" in observation.content


def test_as_tool_checks_its_run_keywords_when_the_tool_is_made():
    quoter = ToolCallingAgent("quoter", ScriptedLLM([]), verbose=False)
    with pytest.raises(TypeError, match="has no JSON form"):
        quoter.as_tool(output_type=object())
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        quoter.as_tool(colour="red")


def test_a_sub_run_that_ends_without_an_answer_names_the_calls_that_ran():
    paid = []

    @tool
    def pay(to: str, amount: int) -> str:
        """Pay someone."""
        paid.append(amount)
        return "paid"

    payment = {"tool_calls": [{"name": "pay", "arguments": {"to": "bob", "amount": 5}}]}
    payer = ToolCallingAgent("payer", ScriptedLLM([payment, payment]), tools=[pay], max_turns=1, verbose=False)
    ask = {"tool_calls": [{"name": "payer", "arguments": {"task": "pay bob 5"}}]}
    boss = ToolCallingAgent("boss", ScriptedLLM([ask, "stopped"]), tools=[payer.as_tool()], verbose=False)
    boss.run("pay bob 5")
    [observation] = [step for step in boss.last_result.steps_of("observation") if step.depth == 0]
    assert paid == [5] and "these calls ran: pay(to='bob', amount=5)" in observation.content


def test_the_calls_named_are_bounded():
    from vero.core.agent_tool import MAX_CALLS_SHOWN, calls_that_ran
    from vero.core.result import RunResult, Step

    steps = [Step("action", f"pay(amount={n})") for n in range(30)]
    steps = [part for step in steps for part in (step, Step("observation", "paid", {"ok": True}))]
    shown = calls_that_ran(RunResult(steps=tuple(steps)))
    assert len(shown) == MAX_CALLS_SHOWN + 1 and shown[-1] == f"and {30 - MAX_CALLS_SHOWN} more"


@pytest.mark.parametrize(
    ("written", "meant"), [("arg", "args"), ("comand", "command"), ("disabled_tools", "disabledTools")]
)
def test_a_misspelt_key_of_a_server_entry_is_named_with_the_key_meant(tmp_path, caplog, written, meant):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"notes": {"command": "notes-mcp", written: ["x"]}}}))
    servers_from_config(str(path))
    assert f'the key "{written}" is not read; did you mean "{meant}"?' in caplog.text


def test_another_clients_own_keys_get_no_warning(tmp_path, caplog):
    entry = {"command": "notes-mcp", "autoApprove": [], "description": "notes", "icon": "n.png", "alwaysAllow": []}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"notes": entry}}))
    servers_from_config(str(path))
    assert "is not read" not in caplog.text


# -- a chat turn that failed after a call that may change things ran ---------------------------------------------
def test_a_failed_chat_turn_names_the_calls_that_ran_before_it_ended(shared_mock_server, tmp_path):
    pytest.importorskip("mcp")
    from test_cli import vero as vero_command

    from vero.testing import HTTPFault

    call = {"tool_calls": [{"name": "write_note", "arguments": {"title": "order", "text": "cancelled"}}]}
    shared_mock_server.enqueue(call, HTTPFault(503, "overloaded"))
    done = vero_command(
        *("chat", "--agent", "chat", "--yes", "--base-url", shared_mock_server.base_url),
        *("--mcp", f"{sys.executable} {NOTES}"),
        cwd=tmp_path,
        input="Note that my order is cancelled.\n",
        MAX_RETRIES="0",
    )
    lines = done.stdout.splitlines()
    assert any("Before the run ended, these calls ran: write_note(title='order', text='cancelled')" in x for x in lines)
    assert any(x.endswith("check what the calls above did before you send it again)") for x in lines), done.stdout


# -- a review of those -----------------------------------------------------------------------------------------
def test_as_tool_takes_no_keyword_it_would_drop():
    from vero.core.agent import Agent

    class TakesAnyKeyword(Agent):  # a solve of one's own takes what run() is given
        def solve(self, task: str, **kwargs: Any) -> str:
            return "done"

    with pytest.raises(TypeError, match="needs_approval"):
        TakesAnyKeyword("mine", ScriptedLLM([])).as_tool(read_only=True, needs_approval=True)


@pytest.mark.parametrize("output_type", [str, None])
def test_an_agent_as_a_tool_with_text_as_its_type_answers_text(output_type):
    helper = ToolCallingAgent("helper", ScriptedLLM(["hello there"]), verbose=False)
    assert helper.as_tool(output_type=output_type).func(task="greet") == "hello there"


def test_an_agent_as_a_tool_whose_type_allows_null_gives_null():
    helper = ToolCallingAgent("helper", ScriptedLLM(["null"]), verbose=False)
    assert helper.as_tool(output_type=int | None).func(task="how many?") is None


def test_a_typed_answer_its_agents_own_check_did_not_accept_is_given_with_a_line_saying_so():
    from vero.core.agent_tool import NOT_ACCEPTED, _typed_answer
    from vero.core.result import RunResult, Status

    result = RunResult(answer='{"price": 12}', status=Status.NEEDS_REVIEW, output=Quote(12))
    assert _typed_answer(None, result) == '{"price": 12}' + NOT_ACCEPTED.format(status="needs_review")


def test_a_retyped_static_method_tool_stays_static():
    shop = shop_class()
    again = tool(shop.__dict__["echo"], read_only=True)
    holder = type("Holder", (), {"echo": again})
    assert ToolRegistry([holder().echo]).run("echo", {"text": "hi"}).output == "hi"


def test_a_key_that_is_no_text_is_an_observation_not_a_traceback():
    @tool
    def tag(item: str, **labels: Any) -> str:
        """Label an item."""
        return "tagged"

    result = ToolRegistry([tag]).run("tag", {"item": "a", 1: True})
    assert not result.ok and "Error" in result.output


def test_a_pinned_parameter_written_another_way_is_refused():
    import functools

    def purge(table: str, dry_run: bool = False, **options: Any) -> str:
        """Delete a table's rows."""
        return f"dry_run={dry_run}"

    result = ToolRegistry([tool(functools.partial(purge, dry_run=True), name="purge")]).run(
        "purge", {"table": "t", "dryRun": False}
    )
    assert not result.ok and "unexpected argument(s): dryRun" in result.output


@pytest.mark.parametrize(("allowed", "offered"), [([], []), (None, ["add", "read_note"])])
def test_an_empty_list_of_tools_allowed_offers_none_and_none_offers_all(allowed, offered):
    with notes_server(allowed_tools=allowed, blocked_tools=None) as server:
        names = sorted(found.name for found in server.tools())
    assert names == offered or set(offered) <= set(names)


def test_a_tool_name_the_server_has_not_is_warned_of(caplog):
    with notes_server(blocked_tools=["delete-note"]) as server:
        assert "delete_note" in [found.name for found in server.tools()]
    assert "no tool of the server is called delete-note" in caplog.text


@pytest.mark.parametrize("trust", [0, 1, "no", None])
def test_trust_that_is_no_bool_is_refused(trust):
    with pytest.raises(TypeError, match="trust must be True or False"):
        notes_server(trust=trust)


def test_a_typed_answer_with_a_tuple_keeps_openais_strict_mode():
    from vero.core.output import OutputSpec

    @dataclasses.dataclass
    class Placement:
        position: tuple[int, str]

    sent = OutputSpec(Placement, 0).response_format()["json_schema"]
    assert sent["strict"] is True and "prefixItems" not in json.dumps(sent["schema"])


def test_a_call_that_timed_out_is_named_as_one_that_may_have_run():
    from vero.core.agent_tool import calls_that_ran
    from vero.core.result import RunResult, Step, ToolError

    steps = [
        Step("action", "pay(amount=5)", {"tool": "pay"}),
        Step("observation", "", {"ok": False, "error": ToolError.TIMEOUT}),
    ]
    assert calls_that_ran(RunResult(steps=tuple(steps))) == ["pay(amount=5) (timed out: it may have run)"]
