"""The engine protocol (docs/protocol.md): outside programs at hsim's table and hsim's
strategies at other tables, one JSON object a line over stdin/stdout.

- :mod:`hsim.bridges.engine.protocol` — the messages: requests built from a seat's
  observation, answers, and a request read back into that observation;
- :mod:`hsim.bridges.engine.process` — an engine's process: started lazily, asked with
  a deadline, never outliving hsim;
- :mod:`hsim.bridges.engine.strategies` — ``engine:CMD ARGS`` as a strategy;
- :mod:`hsim.bridges.engine.serve` — ``hsim serve SPEC``: any hsim strategy as an engine.
"""
