"""What a thirty-fourth outside probe, written as users of pydantic-ai, the OpenAI Agents SDK and other MCP clients
write, found: pydantic validators in a parameter's ``Annotated[...]``, an MCP tool whose schema is a choice at its
top, a renamed MCP tool beside one that has that name, Gemini CLI's config entries, ``${VAR:-default}`` of an empty
variable, and a typed number answer whose dot may group thousands."""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from typing import Annotated

import pytest
from test_mcp import raw_server

from vero import tool
from vero.agents import ToolCallingAgent
from vero.testing import ScriptedLLM
from vero.tools import ToolRegistry
from vero.tools.mcp import MCPError, servers_from_config

pydantic = pytest.importorskip("pydantic")


# -- pydantic's validators in a parameter's Annotated[...] ----------------------------------------------------
def refuse_the_owner(account: str) -> str:
    if account == "owner":
        raise ValueError("the owner's account cannot be closed")
    return account


CLOSED: list[str] = []


@tool
def close_account(account: Annotated[str, pydantic.AfterValidator(refuse_the_owner)]) -> str:
    """Close an account."""
    CLOSED.append(account)
    return f"closed {account}"


def test_an_after_validator_that_refuses_stops_the_call_and_names_why():
    CLOSED.clear()
    result = ToolRegistry([close_account]).run("close_account", {"account": "owner"})
    assert CLOSED == [] and not result.ok
    assert "account (Value error, the owner's account cannot be closed, got 'owner')" in result.output
    assert ToolRegistry([close_account]).run("close_account", {"account": "guest-7"}).output == "closed guest-7"


@dataclasses.dataclass
class Invite:
    address: Annotated[str, pydantic.StringConstraints(strip_whitespace=True, to_lower=True)]


@tool
def send_invite(invite: Invite, times: Annotated[int, pydantic.Field(ge=1), pydantic.BeforeValidator(int)] = 1) -> str:
    """Send an invitation."""
    return f"{invite.address!r} x{times}"


def test_a_transform_of_pydantics_is_what_the_tool_gets_in_a_record_and_beside_a_fields_bound():
    registry = ToolRegistry([send_invite])
    assert registry.run("send_invite", {"invite": {"address": "  Ada@Example.TEST "}}).output == "'ada@example.test' x1"
    assert (
        "times (expected at least 1, got 0)"
        in registry.run("send_invite", {"invite": {"address": "a"}, "times": 0}).output
    )


def test_the_approver_sees_the_value_the_validators_made():
    seen = []
    llm = ScriptedLLM(
        [{"tool_calls": [{"name": "send_invite", "arguments": {"invite": {"address": " Bo@X.TEST"}}}]}, "ok"]
    )
    agent = ToolCallingAgent(
        "a", llm, tools=[send_invite], verbose=False, approve_tool=lambda call: seen.append(call) or True
    )
    agent.run("Invite Bo.")
    assert seen[0].arguments == {"invite": {"address": "bo@x.test"}}


# -- an MCP tool whose schema is a choice at its top -------------------------------------------------------------
def test_a_choice_at_a_schemas_top_is_sent_as_one_object_and_checked_as_the_choice():
    with raw_server("choices") as server:
        registry = ToolRegistry(server.tools())
        sent = registry.get("find_item").schema["function"]["parameters"]
        assert sent == {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "exact": {"type": "boolean"}},
            "required": [],
        }  # what hosted APIs take: no anyOf at the top
        assert json.loads(registry.run("find_item", {"id": "7"}).output) == {"id": 7}
        assert json.loads(registry.run("find_item", {"name": "lamp", "exact": True}).output) == {
            "exact": True,
            "name": "lamp",
        }
        refused = registry.run("find_item", {"exact": True})  # fits neither form: named, not sent
    assert not refused.ok and "no form it takes: expected {id: integer} or {name: string" in refused.output


def test_a_renamed_tool_beside_one_of_that_name_gets_a_name_of_its_own(caplog):
    with caplog.at_level(logging.WARNING, logger="vero.mcp"), raw_server("choices") as server:
        names = {found.name: found.remote_name for found in server.tools()}
    assert names["files_read"] == "files_read"  # the tool that has the name keeps it
    [dotted] = [name for name, remote in names.items() if remote == "files.read"]
    assert dotted.startswith("files_read_") and "is called" in caplog.text


# -- Gemini CLI's settings.json ---------------------------------------------------------------------------------
def gemini_config(tmp_path, **entry) -> str:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"mcpServers": {"raw": {"command": sys.executable, **entry}}}))
    return str(path)


def test_a_bare_dollar_variable_is_read_from_the_environment_as_gemini_cli_reads_it(tmp_path, monkeypatch):
    from test_mcp import RAW

    monkeypatch.setenv("RAW_PROBE_TOKEN", "tok-4471")
    path = gemini_config(tmp_path, args=[RAW], env={"SEEN": "Bearer $RAW_PROBE_TOKEN", "PRICE": "$5 and $UNSET_NAME_X"})
    [server] = servers_from_config(path)
    with server:
        registry = ToolRegistry(server.tools())
        seen, price = (registry.run("record", {"name": name}).output for name in ("SEEN", "PRICE"))
    assert (seen, price) == ("Bearer tok-4471", "$5 and $UNSET_NAME_X")  # a name the environment lacks: as written


def test_a_timeout_past_an_hour_is_read_as_milliseconds_and_said(tmp_path, caplog):
    from test_mcp import RAW

    with caplog.at_level(logging.WARNING, logger="vero.mcp"):
        [gemini] = servers_from_config(gemini_config(tmp_path, args=[RAW], timeout=30000))
    [cline] = servers_from_config(gemini_config(tmp_path, args=[RAW], timeout=90))
    assert (gemini.call_timeout, cline.call_timeout) == (30.0, 90)
    assert '"timeout" 30000 is read as milliseconds (30.0 s)' in caplog.text


def test_gemini_clis_http_url_key_is_read(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"mcpServers": {"remote": {"httpUrl": "http://127.0.0.1:9/mcp"}}}))
    [server] = servers_from_config(str(path))
    assert server.transport.shown == "http://127.0.0.1:9/mcp"


def test_a_default_is_used_for_a_variable_that_is_set_but_empty_as_a_shell_does(tmp_path, monkeypatch):
    from test_mcp import RAW

    monkeypatch.setenv("RAW_PROBE_EMPTY", "")
    [server] = servers_from_config(gemini_config(tmp_path, args=[RAW], env={"SEEN": "${RAW_PROBE_EMPTY:-anonymous}"}))
    with server:
        assert ToolRegistry(server.tools()).run("record", {"name": "SEEN"}).output == "anonymous"


def test_an_unset_braced_variable_is_still_an_error(tmp_path, monkeypatch):
    monkeypatch.delenv("RAW_PROBE_NEVER", raising=False)
    with pytest.raises(MCPError, match="RAW_PROBE_NEVER, which is not set"):
        servers_from_config(gemini_config(tmp_path, args=["x"], env={"A": "${RAW_PROBE_NEVER}"}))


# -- a typed number answer whose dot may group thousands -------------------------------------------------------
@pytest.mark.parametrize(("written", "meant"), [("709.000", 709000), ("-2.500", -2500), ("1.250.000", 1250000)])
def test_a_number_answer_whose_dot_may_group_thousands_is_asked_again(written, meant):
    agent = ToolCallingAgent("a", ScriptedLLM([written, str(meant)]), verbose=False)
    assert agent.run("How many people live there?", output_type=int) == meant
    assert agent.last_result.llm_calls == 2


def test_the_note_says_both_readings_of_such_a_number():
    agent = ToolCallingAgent("a", ScriptedLLM(["709.000", "709000"]), verbose=False)
    agent.run("How many people live there?", output_type=int)
    note = agent.last_result.steps[1].content
    assert "709.000 is not plainly a number: write 709000 if the dot groups thousands, else 709.0" in note


@pytest.mark.parametrize(
    ("written", "output_type", "read"), [("2.5", float, 2.5), ("12.50", float, 12.5), ("709", int, 709)]
)
def test_a_plain_number_answer_is_taken_at_once(written, output_type, read):
    agent = ToolCallingAgent("a", ScriptedLLM([written]), verbose=False)
    assert agent.run("How much?", output_type=output_type) == read and agent.last_result.llm_calls == 1


# -- a docstring as PEP 257 writes it ----------------------------------------------------------------------------
def test_pep_257s_keyword_arguments_with_double_dashes_describe_the_parameters():
    @tool
    def forecast(city: str, days: int = 1) -> str:
        """Get the weather.

        Keyword arguments:
        city -- the city's name
        days -- how many days ahead (default 1)
        """
        return city

    properties = forecast.parameters["properties"]
    assert properties["city"]["description"] == "the city's name"
    assert properties["days"]["description"] == "how many days ahead (default 1)"


# -- a review of those ------------------------------------------------------------------------------------------
@tool
def close_optional(account: Annotated[str, pydantic.AfterValidator(refuse_the_owner)] | None = None) -> str:
    """Close an account, or the current one."""
    CLOSED.append(account)
    return f"closed {account}"


def test_a_validator_runs_inside_an_optional_too():
    CLOSED.clear()
    result = ToolRegistry([close_optional]).run("close_optional", {"account": "owner"})
    assert CLOSED == [] and "the owner's account cannot be closed" in result.output


@pytest.mark.parametrize(("written", "output_type"), [("0.125", float), ("3.142", float), ("2.500", float)])
def test_a_decimal_answer_with_three_places_is_taken_for_a_float(written, output_type):
    agent = ToolCallingAgent("a", ScriptedLLM([written]), verbose=False)
    assert agent.run("How much?", output_type=output_type) == float(written) and agent.last_result.llm_calls == 1


def test_a_variables_value_is_not_read_again(tmp_path, monkeypatch):
    from test_mcp import RAW

    monkeypatch.setenv("RAW_PROBE_PASSWORD", "s3cr!$HOME")
    [server] = servers_from_config(gemini_config(tmp_path, args=[RAW], env={"SEEN": "${RAW_PROBE_PASSWORD}"}))
    with server:
        assert ToolRegistry(server.tools()).run("record", {"name": "SEEN"}).output == "s3cr!$HOME"


def test_a_timeout_a_gemini_user_may_mean_in_milliseconds_is_read_as_seconds_and_said(tmp_path, caplog):
    from test_mcp import RAW

    with caplog.at_level(logging.WARNING, logger="vero.mcp"):
        [server] = servers_from_config(gemini_config(tmp_path, args=[RAW], timeout=2000))
    assert server.call_timeout == 2000 and '"timeout" 2000 is read as seconds' in caplog.text


def test_a_lower_case_label_in_a_docstring_is_no_section():
    @tool
    def lookup(key: str) -> str:
        """Look a key up.

        note:
            keys are case-sensitive
        """
        return key

    assert lookup.description == "Look a key up. note: keys are case-sensitive"
