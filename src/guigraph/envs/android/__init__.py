"""Android phones and emulators over ADB: the world (``env``), typing (``text_input``), the UI
tree (``uixml``), the device (``device``) and recording a person (``recorder``)."""
