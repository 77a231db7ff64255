"""Ask: chat with the collection through config A; answers stream in with citations and every score.
Chats are saved with the collection: a reload or a new tab finds them; "New chat" starts fresh."""

import json

import streamlit as st

from ragkit.app.presentation import display_name
from ragkit.app.workspace import chat_markdown
from ragkit.core.errors import RagkitError
from ragkit.core.types import Message
from ragkit.pipeline.answer import Answer
from ui import answers, state, widgets

st.title("Ask")
collection = widgets.active_collection()
cfg = state.config("A")
st.caption(f"Config A: {widgets.config_summary(cfg)}")
ready = collection is not None and bool(collection.documents())
if collection is None:
    st.info("No collection yet: create one in the sidebar and upload documents on the Documents page.")
elif not ready:
    st.info(
        f"Collection **{display_name(collection.name)}** is empty: upload documents on the Documents page "
        "first."
    )

ws = state.workspace()
chat = state.session_chat(ws) if ws is not None else {"id": "none", "turns": [], "title": ""}
if ws is not None:
    chats = ws.chats()
    bar = st.columns([1, 3, 1, 1])
    if bar[0].button("New chat", disabled=not chat["turns"]):
        state.open_chat(None)
        st.rerun()
    if any(c["id"] != chat["id"] for c in chats):  # saved chats of the collection, to reopen
        ids = [c["id"] for c in chats][::-1]
        if chat["id"] not in ids:
            ids.insert(0, chat["id"])  # this session's new chat, not saved before its first question
        titles = {c["id"]: f"{c.get('title') or 'empty chat'} · {c['created'][:16]}" for c in chats}
        titles.setdefault(chat["id"], "new chat")
        picked = bar[1].selectbox(
            "Chat", ids, index=ids.index(chat["id"]), format_func=titles.get, label_visibility="collapsed"
        )
        if picked != chat["id"]:
            state.open_chat(picked)
            st.rerun()
    if chat["turns"]:
        bar[2].download_button(
            "Export JSON", json.dumps(chat, indent=2, ensure_ascii=False), f"ragkit-chat-{chat['id']}.json",
            "application/json",
        )  # fmt: skip
        bar[3].download_button(
            "Export Markdown", chat_markdown(chat), f"ragkit-chat-{chat['id']}.md", "text/markdown"
        )

# the chat so far is drawn into this box *after* a new question has been answered: the answer's work runs
# while the page is idle, so its stage timings are the work's, not the work's plus the drawing's
past = st.container()
live = st.container()
question = st.chat_input("Ask a question about the documents", disabled=not ready)
earlier = list(chat["turns"])  # before this question's turn is appended
history: list[Message] = []
for turn in earlier:
    if not turn.get("error"):
        pages = tuple(
            u for w in (turn["answer"].get("trace") or {}).get("web", []) for u in w.get("fetched", [])
        )
        history += [Message("user", turn["question"]), Message("assistant", turn["answer"]["answer"], pages)]

if question and ready and ws is not None:
    with live:
        with st.chat_message("user"):
            st.markdown(widgets.text_md(question))
        with st.chat_message("assistant"):
            key = f"{chat['id']}-t{len(earlier)}"
            try:
                (pipe,) = widgets.pipelines(collection, [cfg])
                with st.spinner("Searching the collection…"):
                    prep = pipe.prepare(question, history)
                placeholder = st.empty()
                with placeholder.container(), st.spinner("Writing the answer…"):
                    text = st.write_stream(pipe.stream(prep))
                answer = pipe.finish(prep, text if isinstance(text, str) else "".join(map(str, text)))
                placeholder.empty()
                answers.render_answer(answer, collection, key=key)
                ws.append_turn(chat["id"], {"question": question, "answer": answer.to_dict()})
            except RagkitError as e:
                st.error(str(e))
                ws.append_turn(chat["id"], {"question": question, "answer": None, "error": str(e)})

with past:
    for i, turn in enumerate(earlier):
        with st.chat_message("user"):
            st.markdown(widgets.text_md(turn["question"]))
        with st.chat_message("assistant"):
            if turn.get("error"):
                st.error(turn["error"])
                continue
            # the latest answer with its charts; earlier ones state the same figures in a line
            latest = i == len(earlier) - 1 and not (question and ready)
            answers.render_answer(
                Answer.from_dict(turn["answer"]), collection, key=f"{chat['id']}-t{i}", compact=not latest
            )
