"""taishu Streamlit front end (thin: widgets wired to scoring and vision)."""

import streamlit as st

st.set_page_config(page_title="台數 taishu", page_icon="🀄", layout="centered")
st.title("台數 taishu")
st.write("Score a winning Taiwan 16-tile mahjong hand.")
