"""What the tabs share: the tab protocol, plot style and run colours, the model catalog's background
jobs, the example sentences, the menu button. A tab package imports these, gui/attention/ and the
app-wide modules beside them (gui/workers.py, gui/screen_fit.py, gui/stored_settings.py,
gui/heap.py), never another tab's modules (tests/engine/test_layers.py)."""
