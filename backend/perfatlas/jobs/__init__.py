"""Jobs: one workload spec to run on one agent, leased by the agent's daemon while it runs."""
