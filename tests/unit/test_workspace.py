"""Unit tests of :mod:`ragkit.app.workspace`."""

from __future__ import annotations

import threading

from ragkit.app.workspace import Workspace, chat_markdown, last_collection, new_chat, remember_collection
from ragkit.pipeline.config import PipelineConfig
from tests.conftest import sample_answer as _answer


def test_workspace_keeps_configs_chats_and_comparisons(tmp_path):
    ws = Workspace(tmp_path)
    cfgs = {
        "A": PipelineConfig(name="A", retriever="dense", top_k=4),
        "B": PipelineConfig(name="B", chunker="sentence"),
    }
    ws.save_configs(cfgs)
    chat = new_chat()  # a session's chat is saved with its first turn
    ws.append_turn(chat["id"], {"question": "Who?", "answer": _answer().to_dict()})
    ws.set_value("batch", {"rows": [{"question": "Who?", "better": "A"}]})
    again = Workspace(tmp_path)  # what a reload reads
    assert again.configs() == cfgs
    cur = again.chat(chat["id"])
    assert cur["id"] == chat["id"] and cur["title"] == "Who?" and len(cur["turns"]) == 1
    assert again.get("batch")["rows"][0]["better"] == "A"
    fresh = new_chat()
    again.append_turn(fresh["id"], {"question": "When?", "answer": None})
    assert again.chat(fresh["id"])["title"] == "When?" and len(again.chats()) == 2
    assert "## Who?" in chat_markdown(cur) and "[1] a.pdf, page 2" in chat_markdown(cur)
    assert "groq" not in (tmp_path / "workspace.json").read_text().lower()


def test_two_writers_of_one_workspace_lose_no_turn(tmp_path):
    chat = new_chat()

    def write(tag: str) -> None:
        for i in range(20):
            Workspace(tmp_path).append_turn(chat["id"], {"question": f"{tag}{i}", "answer": None})

    threads = [threading.Thread(target=write, args=(t,)) for t in "xy"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    questions = {t["question"] for t in Workspace(tmp_path).chat(chat["id"])["turns"]}
    assert questions == {f"{t}{i}" for t in "xy" for i in range(20)}


def test_an_unreadable_workspace_is_set_aside_not_a_crash(tmp_path):
    (tmp_path / "workspace.json").write_text("{half a file")
    data = Workspace(tmp_path).load()
    assert "unreadable" in data["notice"] and list(tmp_path.glob("workspace.json.unreadable-*"))
    assert Workspace(tmp_path).configs() == {}


def test_the_last_collection_is_remembered(tmp_path):
    assert last_collection(tmp_path) is None
    remember_collection(tmp_path, "papers")
    assert last_collection(tmp_path) == "papers"


def test_a_session_saving_one_config_keeps_the_other_sessions_change_of_the_other(tmp_path):
    Workspace(tmp_path).save_configs({"A": PipelineConfig(name="A"), "B": PipelineConfig(name="B")})
    Workspace(tmp_path).save_configs({"A": PipelineConfig(name="A", top_k=7)})  # session 1 edits A
    Workspace(tmp_path).save_configs({"B": PipelineConfig(name="B", retriever="bm25")})  # session 2, B
    saved = Workspace(tmp_path).configs()
    assert saved["A"].top_k == 7 and saved["B"].retriever == "bm25"


def test_a_chat_is_found_by_its_id_only(tmp_path):
    ws = Workspace(tmp_path)
    ws.append_turn("c1", {"question": "q1", "answer": {"answer": "a1"}})
    assert ws.chat("c1")["turns"][0]["question"] == "q1"
    assert ws.chat("c2") is None and ws.chat(None) is None
