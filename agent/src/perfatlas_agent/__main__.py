from perfatlas_agent.cli import main

main()
