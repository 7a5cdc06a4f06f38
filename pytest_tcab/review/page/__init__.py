"""The review page and its loopback server (`--tcab-review=RESULTS`).

A person plays each run's build (its served site, copied into its results by
`run.report.site`), decides the points its validators left, overrides a validator with a note,
rates the run variant's domains and saves: the review file and its history are written with the
review store (`review.store`), and the figures recomputed (`review.fold`).

The build is hostile, and the page is where a person's word is written down, so the two never
share an origin: the page is served on one loopback port with a strict CSP, the build on another
(one per run, its site copy and nothing else) and played in `<iframe sandbox="allow-scripts">`,
and a save needs the session's token, which only the page holds, and the page's own Origin.

Modules: `runs` (what RESULTS holds, and each run's worklist state), `view` (one run as the page
shows it: its checklist, media, domains, errata), `form` (the posted fields as a review, or the
reviewer's mistakes), `markup` (the HTML), `server` (both origins, the token, the session loop);
`page.js` and `page.css` are served as they are.
"""
