"""What the app needs besides widgets, testable without Streamlit: the page's state (`state`: the hand being
fixed, the photo and its readings, the page at a table), its photo boxes (`photo`), saving corrections as training
data (`dataset`), results as rows (`result`) and the words on screen in either script (`text`); and the pages drawn
apart from app.py: a table's evening (`table_desk` opens and watches it, `table_record` records a hand,
`table_history` lists, undoes and edits its lines, `table_penalties` holds 詐胡 and 罰款), its memory of its own set
(`table_memory`, `teach_page`), the data-set audit (`audit_page`)."""
