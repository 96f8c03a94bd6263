"""What the app needs besides widgets, testable without Streamlit: the draft hand being fixed up
(`draft`), its photo boxes (`photo`), saving corrections as training data (`dataset`), results as
rows (`result`) and the words on screen in either script (`text`); and the pages drawn apart from app.py:
a table's evening (`table_page`), its memory of its own set (`table_memory`, `teach_page`), the data-set
audit (`audit_page`)."""
