def monitor(*a, **k): raise NotImplementedError
class Monitor: pass
