"""The pendulum fit (problems.py) written for a peer library: `sin` is its sine of a scalar
(``autograd.numpy.sin``, ``jax.numpy.sin``, ``torch.sin``), the rest is the user's code."""


def pendulum_with(sin):
    def rhs(theta, omega, c, k):
        return omega, -c * omega - k * sin(theta)

    def step(theta, omega, c, k, h):
        a1, b1 = rhs(theta, omega, c, k)
        a2, b2 = rhs(theta + 0.5 * h * a1, omega + 0.5 * h * b1, c, k)
        a3, b3 = rhs(theta + 0.5 * h * a2, omega + 0.5 * h * b2, c, k)
        a4, b4 = rhs(theta + h * a3, omega + h * b3, c, k)
        return (theta + h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4),
                omega + h / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4))

    def pendulum(c, k, observed, steps):
        theta, omega = 1.0, 0.0
        states = []
        for _ in range(steps):
            theta, omega = step(theta, omega, c, k, 0.05)
            states.append(theta)
        misfit = 0.0
        for i in range(len(states)):
            misfit = misfit + (states[i] - observed[i]) ** 2
        return misfit

    return pendulum
