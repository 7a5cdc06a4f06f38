"""The browser wing: Chromium, and the pages it drives.

Owns launching and confining Chromium and lending its contexts (`session`, `netns`), the loopback
server of a build's output (`serve`), driving a page (`driving`, with its init scripts), the
`[[check]]` items (`checks`), mockup renders (`mockups`), the image diff (`imagediff`) and
replays (`replay`). May import the run, `build/`'s typescript and the shared modules; not `report/`.
"""
