"""Fit a physical model through its simulation: a room warming up after the heating starts.

The room starts at 12 °C.  Each time step of `dt` hours it moves a fraction `rate * dt` of
the way towards its steady temperature `T_eq` (Newton's law of heating/cooling, stepped
with the explicit Euler method).  We have a noisy thermometer reading after every step and
want `rate` and `T_eq`.  The loss runs the simulation in a `for` loop and compares each
step with the reading; srcdiff differentiates straight through the loop, and gradient
descent recovers the parameters.

Run:  python examples/physics.py
"""

import numpy as np

import srcdiff

TRUE_RATE, TRUE_T_EQ = 0.3, 21.0  # per hour, °C


def misfit(rate, T_eq, readings, T0, dt):
    """Mean squared difference between the simulated temperature and the readings."""
    T = T0
    total = 0.0
    for i in range(len(readings)):
        T = T + dt * rate * (T_eq - T)
        total = total + (T - readings[i]) ** 2
    return total / len(readings)


def simulate(rate, T_eq, steps, T0, dt):
    """The same simulation, returning every step's temperature (to make the readings)."""
    temperatures = []
    T = T0
    for _ in range(steps):
        T = T + dt * rate * (T_eq - T)
        temperatures.append(T)
    return np.array(temperatures)


def main(hours=12.0, dt=0.25, steps=200, seed=0, show_source=True):
    """Fit rate and T_eq from a poor guess; return the fitted values for a test to check."""
    T0 = 12.0
    rng = np.random.default_rng(seed)
    n = int(round(hours / dt))
    readings = simulate(TRUE_RATE, TRUE_T_EQ, n, T0, dt) + 0.05 * rng.normal(size=n)

    dmisfit = srcdiff.grad(misfit, wrt=("rate", "T_eq"))
    # The two parameters have very different scales (a rate near 0.3 per hour, a temperature
    # near 20 °C), so each gets its own step size.
    step_rate, step_T_eq = 0.001, 0.5

    rate, T_eq = 0.1, 15.0
    for step in range(steps + 1):
        if step % 25 == 0:
            print(f"step {step:4d}   misfit {misfit(rate, T_eq, readings, T0, dt):9.5f}   "
                  f"rate {rate:.4f}   T_eq {T_eq:.3f}")
        g_rate, g_T_eq = dmisfit(rate, T_eq, readings, T0, dt)
        rate -= step_rate * g_rate
        T_eq -= step_T_eq * g_T_eq

    print(f"fitted rate = {rate:.3f} per hour (true {TRUE_RATE}), "
          f"T_eq = {T_eq:.2f} °C (true {TRUE_T_EQ})")
    if show_source:
        # The loop appears once, not once per time step: the forward sweep saves on a stack
        # what each step overwrites, and the backward sweep runs the steps in reverse.
        print()
        print("the gradient srcdiff generated:")
        print(dmisfit.source)
    return rate, T_eq


if __name__ == "__main__":
    main()
