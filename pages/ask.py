"""Ask: chat with the collection through config A; answers stream in with citations and every score."""

import streamlit as st

from ragkit.errors import RagkitError
from ragkit.types import Message
from ui import resources, state, widgets

st.title("Ask")
collection = widgets.active_collection()
cfg = state.config("A")
st.caption(f"Config A: {widgets.config_summary(cfg)}")
ready = collection is not None and bool(collection.documents())
if collection is None:
    st.info("No collection yet: create one in the sidebar and upload documents on the Documents page.")
elif not ready:
    st.info(f"Collection **{collection.name}** is empty: upload documents on the Documents page first.")

chat = st.session_state[state.CHAT]
for i, turn in enumerate(chat):
    with st.chat_message("user"):
        st.markdown(turn["question"])
    with st.chat_message("assistant"):
        if turn.get("error"):
            st.error(turn["error"])
        else:
            widgets.render_answer(turn["answer"], turn["store"], key=f"turn{i}")

if st.session_state[state.CHAT] and st.button("Clear conversation"):
    st.session_state[state.CHAT] = []
    st.rerun()

question = st.chat_input("Ask a question about the documents", disabled=not ready)
if question and ready:
    with st.chat_message("user"):
        st.markdown(question)
    history = []
    for turn in chat:
        if turn.get("answer") is not None:
            history += [Message("user", turn["question"]), Message("assistant", turn["answer"].text)]
    with st.chat_message("assistant"):
        try:
            pipe = resources.pipeline(collection, cfg, state.groq_key())
            prep = pipe.prepare(question, history)
            text = st.write_stream(pipe.stream(prep))
            answer = pipe.finish(prep, text if isinstance(text, str) else "".join(map(str, text)))
            widgets.render_answer(answer, pipe.store, key=f"turn{len(chat)}", show_text=False)
            chat.append({"question": question, "answer": answer, "store": pipe.store})
        except RagkitError as e:
            st.error(str(e))
            chat.append({"question": question, "answer": None, "error": str(e)})
