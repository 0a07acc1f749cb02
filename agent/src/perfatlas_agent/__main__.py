from perfatlas_agent.cli.main import main

main()
