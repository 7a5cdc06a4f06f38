"""The assets wing: produced game assets measured against the suite's reference asset.

Owns the `asset[<file>]` items (`items`), the format measurements (`formats`: images, sheets,
voxels, glTF, particles, MIDI, audio) and their previews (`previews`). May import the run,
`browser/` (the particle player) and the shared modules; not `report/`.
"""
