"""The browser wing: Chromium, and the pages it drives.

Owns launching and confining Chromium and lending its contexts (`session`, `netns`: the build
steps' mount view, from `build/`'s sandbox), the loopback servers of a build's output and of the
plugin's own pages (`serve`), driving a page (`driving`, with its init scripts), the Web Audio
evidence taken from outside a page (`audio`), the `[[check]]` items (`checks`), mockup renders
(`mockups`), the image diff (`imagediff`) and replays (`replay`). May import the run, `build/`'s
typescript and sandbox and the shared modules; not `report/`.
"""
