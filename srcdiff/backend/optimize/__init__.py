"""backend/optimize"""
