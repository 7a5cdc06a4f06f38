"""The report wing: what a session writes once items have run.

Owns results.json (`results`, `records`), the scoring of a run (`scoring`), report.html (`html`),
bounded reports and JUnit properties (`junit`), joining shards (`merge`), the runs a resume keeps
(`carried`) and pytest-html extras (`html_extras`). It may import every other part; only it and the plugin import it.
"""
