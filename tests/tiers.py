"""Two tiers of tests: ``python -m pytest`` (everything but ``slow`` and ``install``; what CI
runs) and ``python -m pytest --quick`` for the edit-test loop, which also leaves out the tests
marked ``heavy``.

A test is ``heavy`` when it reads the real clips in ../shared/data (the ``shared_data``
fixture), or is listed below (a module, or a test by the start of its name): they start
subprocesses (the CLI, the apps, a recorder to kill, a browser), run every command of a
document, play whole replays, or sweep inputs with hypothesis. Anything else is quick;
``pytest --quick --durations=20`` shows what to move when the quick tier grows past its budget
(two minutes on a 2-core machine).
"""
from __future__ import annotations

import pytest

# Modules, or single tests (``module::test``), whose cost is in subprocesses, whole replays or sweeps;
# picked from `pytest --quick --durations=40` on the 2-core development machine.
HEAVY = (
    # whole documents, the CLI and the apps in subprocesses, hypothesis sweeps
    "tests/test_readme.py", "tests/test_docs.py", "tests/test_examples.py", "tests/test_cli_outputs.py",
    "tests/test_reliability.py", "tests/test_recording_fuzz.py", "tests/test_cli_pacing_progress.py",
    "tests/test_wheel.py",
    "tests/test_osc.py::test_any_event_round_trips",
    "tests/test_osc_commands.py::test_replayed_recording_arrives_in_order",
    "tests/test_profile.py::test_round_trip", "tests/test_settings.py::test_every_setting_round_trips_through_osc",
    "tests/test_ratelimit.py::test_an_osc_flood_on_a_running_command",
    "tests/audio/test_clap.py::test_the_strictest_clap_setting_finds_fewer_claps_in_events",
    "tests/apps/test_script.py::test_the_cli_runs_a_scripted_session",
    "tests/apps/test_profile_key.py::test_a_click_is",
    "tests/apps/test_screenshots.py", "tests/apps/test_live_run.py", "tests/apps/test_cli.py",
    "tests/apps/test_vision_apps.py", "tests/apps/test_book.py", "tests/steer/test_app.py", "tests/collide/test_app.py",
    "tests/panel/test_browser.py", "tests/panel/test_browser_layout.py", "tests/panel/test_info.py",
    # live drivers through their substitutes, recorders killed on purpose
    "tests/capture/test_recording_kill.py", "tests/capture/test_record_live.py", "tests/capture/test_microphone.py",
    "tests/capture/test_pacedmic.py", "tests/capture/test_camera.py", "tests/capture/test_record_fps.py",
    "tests/capture/test_devices.py", "tests/capture/test_cli_foundation.py", "tests/capture/test_replay_determinism.py",
    "tests/capture/test_recording.py::test_sigkill_leaves_a_replayable_recording",
    # evaluations on long synthetic scenes
    "tests/vision/test_track_eval.py", "tests/vision/test_hand_options.py", "tests/test_benchmarks.py",
    "tests/vision/test_own_footage.py::test_track_eval_on", "tests/vision/test_own_footage.py::test_false_losses_on",
    "tests/vision/test_own_footage.py::test_every_clip_benchmark", "tests/vision/test_own_footage.py::test_one_clip",
    "tests/vision/test_own_footage.py::test_track_eval_refuses",
    "tests/vision/test_noise.py::test_a_calibrated_threshold_is_the_learned_one",
    "tests/vision/test_motion.py::test_background_model_replays_bit_for_bit",
    "tests/audio/test_plot.py::test_plot_writes_a_png",
    "tests/audio/test_clap.py::test_a_burst_with_no_air_is_never_a_clap",
    "tests/apps/test_hud.py::test_plot_and_the_activity_graph_count",
    "tests/test_synth_entry.py::test_python_m_sensekit_synth_never_rewrites",
    "tests/test_synth_entry.py::test_python_m_sensekit_synth_makes_a_missing",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true",
                     help="the quick tier: leave out the tests marked heavy (see tests/tiers.py)")


def _is_heavy(item: pytest.Item) -> bool:
    module, _, test = item.nodeid.partition("::")
    return (module in HEAVY or any(h.startswith(f"{module}::") and test.startswith(h.split("::")[1]) for h in HEAVY)
            or "shared_data" in getattr(item, "fixturenames", ()))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _is_heavy(item):
            item.add_marker(pytest.mark.heavy)
    if config.getoption("--quick"):
        keep = [item for item in items if not item.get_closest_marker("heavy")]
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("heavy")])
        items[:] = keep


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """Say which tier ran, so the numbers the documentation quotes come from the suite itself
    (pytest's own last line gives the counts and the time; ``-ra`` lists every skip's reason)."""
    tier = "quick (--quick: heavy tests left out)" if config.getoption("--quick") else "full"
    marks = config.getoption("-m") or ""
    terminalreporter.write_line(f"sensekit test tier: {tier}; markers: {marks or 'all'}")
