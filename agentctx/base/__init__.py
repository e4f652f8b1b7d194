"""The foundation every other package stands on: errors, ids, the record model, paths, safe file reading, text and
tokens, config, project identity and on/off control, secret scrubbing, detached processes.

May import: the standard library, `agentctx.stash` (the secret rules), and itself. Nothing here touches the store.
"""

__version__ = "0.1.0"
