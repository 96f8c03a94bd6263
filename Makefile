PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean-venv

# (Re)install when the project metadata changes; torch comes from this machine's local wheels.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[train,dev]'
	touch $(STAMP)

run: $(STAMP)
	@echo "taishu: open http://localhost:8501 on this machine, or on a phone on the same Wi-Fi:"
	@echo "        http://$$(hostname -I 2>/dev/null | cut -d' ' -f1 || echo THIS-MACHINE-IP):8501"
	$(BIN)/streamlit run app.py

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

clean-venv:
	rm -rf $(VENV)
