"""Work that spans domains, in one place: uploads and the detection they ask for, job
completion, confirmation rounds and verdicts, an agent's revocation and the agents' overview,
the notification sweep. Routes and tasks call these; the domains below never import them."""
