from django.urls import path

from ratings import views

urlpatterns = [
    path("ratings/", views.leaderboards, name="leaderboards"),
    # A pool is a game ("mecca") or a game and its variant ("mancala/kalah"); <path:pool> would take
    # "…/statistics" too, so the statistics come first.
    path("ratings/<path:pool>/statistics/", views.statistics, name="pool_statistics"),
    path("ratings/<path:pool>/", views.leaderboard, name="leaderboard"),
]
